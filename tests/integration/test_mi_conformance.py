"""The MI differential runner (conformance/mi_diff.py): `aliceserver -i=mi` against gdb.

Every scenario runs the same MI commands through gdb and through our server; the records
are normalized (addresses in the stack and shared libraries, pids, LWPs, cores, the build
directory) and compared. A test fails on a difference in a field that Emacs gdb-mi.el or
Vim termdebug read (CLIENTS.md part 2); the other differences are printed, not asserted.
Skipped when gdb is absent.
"""

from __future__ import annotations

import shutil

import pytest

from conformance.mi_diff import SCENARIOS, MiScenario, diff
from tests.support.build import Builder

pytestmark = pytest.mark.timeout(300)

# Scenarios where the server still differs in a client-read field, with what differs.
# Remove an entry when the server catches up (strict: an unexpected pass fails, so the
# list cannot go stale).
KNOWN_GAPS: dict[str, str] = {}


@pytest.fixture(scope="module")
def gdb_present() -> None:
    if shutil.which("gdb") is None:
        pytest.skip("gdb not found: the MI differential runner compares against it")


@pytest.mark.parametrize(
    "scenario",
    [
        pytest.param(s, marks=pytest.mark.xfail(reason=KNOWN_GAPS[s.name], strict=True))
        if s.name in KNOWN_GAPS
        else s
        for s in SCENARIOS
    ],
    ids=[s.name for s in SCENARIOS],
)
def test_mi_agrees_with_gdb(gdb_present: None, builder: Builder, scenario: MiScenario) -> None:
    outcome = diff(scenario, builder)
    assert outcome.gdb and not any(step.error for step in outcome.gdb), (
        "gdb itself did not get through the scenario: the scenario is broken"
    )
    others = [d for d in outcome.differences if not d.client]
    if others:
        print(f"{len(others)} differences in fields no client reads:")
        for difference in others:
            print(f"  {difference}")
    broke = [step for step in outcome.ours if step.error]
    assert not broke, f"our server broke at {broke[0].command!r}: {broke[0].error}"
    clients = outcome.client_differences
    assert not clients, "\n".join(str(d) for d in clients)
