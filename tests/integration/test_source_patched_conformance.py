"""The differential runner's scenarios with the breakpoints behind jump patches
(conformance/source_patched.py, `python -m conformance.source_diff --patched`): the same
stops as gdb's with the same condition, and the patches really in: each scenario's
breakpoint was patched, or kept its trap with the engine's reason (a trap fallback)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.source_cli import main
from conformance.source_diff import SCENARIOS, Builders, Scenario
from conformance.source_patched import REMOTE_REFUSAL, patched_diff
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder

pytestmark = [pytest.mark.timeout(120)]

# Sites that keep their trap, and the reason the engine must give (a new one fails the test).
FALLBACKS = {
    "opt-O2": "before the 5 bytes a jump needs",  # main's last line is 4 bytes before a ret
    "cpp-reference": "not compiled to machine code",  # `ref == ref`: a reference
}


@pytest.fixture(scope="module")
def builders(builder: Builder) -> Builders:
    return Builders(builder, MoreBuilder(builder.cache_dir))


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_patched_breakpoints_stop_as_gdb_does(debugger: Any, builders: Builders, scenario: Scenario) -> None:
    reason = builders.available(scenario)
    if reason is not None:
        pytest.skip(reason)
    patched = patched_diff(scenario, builders, engine=debugger)
    outcome, report = patched.outcome, patched.report
    assert outcome.gdb, "gdb never stopped: the scenario is broken"
    assert not outcome.differences, "\n".join(str(d) for d in outcome.differences)
    assert report.condition is not None, report.describe()
    if scenario.name in FALLBACKS:
        assert report.trap_fallback, f"{scenario.name} is patched now: {report.describe()}"
        assert all(FALLBACKS[scenario.name] in why for why in report.refused.values())
        assert set(report.refused) == set(report.sites), report.describe()
        return
    assert report.patched, report.describe()
    if scenario.name.startswith("again-"):  # hit again after the patch went in
        assert report.trampoline_stops >= 2, report.describe()


def test_the_patched_mode_refuses_remote_targets(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--patched", "--remote", "basic-deep"]) == 2
    assert REMOTE_REFUSAL in capsys.readouterr().err
