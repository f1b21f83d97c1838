#!/usr/bin/env bash
# The one test command, for a developer's quickstart and for CI alike: set up, type-check,
# lint, then pytest with any extra arguments passed through.
#   scripts/test.sh                      everything
#   scripts/test.sh tests/unit -k frame  a subset (ALICESERVER_NO_LINT=1 skips mypy and ruff)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh

if [ -z "${ALICESERVER_NO_LINT:-}" ]; then
    echo "test: mypy --strict aliceserver" >&2
    .venv/bin/mypy aliceserver
    echo "test: ruff check aliceserver" >&2
    .venv/bin/ruff check aliceserver
fi

set +e
.venv/bin/python -m pytest "$@"
code=$?
set -e
if [ "$code" -eq 5 ]; then
    echo "test: error: pytest collected no tests; treating that as a failure" >&2
    exit 1
fi
exit "$code"
