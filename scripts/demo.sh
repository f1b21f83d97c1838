#!/usr/bin/env bash
# Set up (if needed) and run the demo; arguments go to `aliceserver demo`.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
exec .venv/bin/python -m aliceserver demo "$@"
