"""The MI differential runner with every breakpoint behind a jump patch
(conformance/mi_patched.py, `python -m conformance.mi_diff --patched`): the same records as
gdb's with the same condition, hit counts included, and the patches really in: the
scenarios that hit a breakpoint again after a continue get stops from a trampoline."""

from __future__ import annotations

import shutil

import pytest

from conformance.mi_diff import SCENARIOS, MiScenario
from conformance.mi_patched import patched_diff
from tests.support.build import Builder

pytestmark = pytest.mark.timeout(300)

# Stops from a trampoline at least (the others hit each breakpoint once before a continue,
# or never: their patches go in, if at all, when no stop follows).
TRAMPOLINE_STOPS = {"break-run-step": 1, "cli-on-mi": 1, "again-break": 4}


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_patched_breakpoints_give_gdbs_records(builder: Builder, scenario: MiScenario) -> None:
    if shutil.which("gdb") is None:
        pytest.skip("gdb not found: the MI differential runner compares against it")
    outcome, report = patched_diff(scenario, builder)
    assert outcome.gdb and not any(step.error for step in outcome.gdb), "the scenario is broken"
    broke = [step for step in outcome.ours if step.error]
    assert not broke, f"our server broke at {broke[0].command!r}: {broke[0].error}"
    assert not outcome.client_differences, "\n".join(map(str, outcome.client_differences))
    assert not report.refused, report.describe()  # no site kept its trap
    assert report.trampoline_stops >= TRAMPOLINE_STOPS.get(scenario.name, 0), report.describe()
