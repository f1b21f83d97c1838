"""The MI differential runner (conformance/mi_diff.py): `aliceserver -i=mi` against gdb.

Every scenario runs the same MI commands through gdb and through our server; the records
are normalized (addresses in the stack and shared libraries, pids, LWPs, cores, the build
directory) and compared. A test fails on a difference in a field that Emacs gdb-mi.el or
Vim termdebug read (CLIENTS.md part 2) unless it is a known gap listed below; the other
differences are printed, not asserted. The last test fails when a known gap no longer
occurs, so the list cannot go stale. Skipped when gdb is absent.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass

import pytest

from conformance.mi_diff import SCENARIOS, Difference, MiScenario, Outcome, diff
from tests.support.build import Builder

pytestmark = pytest.mark.timeout(300)


@dataclass(frozen=True)
class Gap:
    """A known difference of our server in a client-read field (regexes on a Difference)."""

    reason: str
    path: str
    command: str = ""

    def explains(self, difference: Difference) -> bool:
        return re.search(self.path, difference.path) is not None and (
            not self.command or re.search(self.command, difference.command) is not None
        )


# None today: `file`, target-id, a next onto a breakpoint, -stack-list-variables order,
# char pointer varobjs, -var-update after -var-assign and address expressions in memory
# reads all agree with gdb now. Add a Gap here only for a difference meant to stay.
KNOWN_GAPS: tuple[Gap, ...] = ()

_outcomes: dict[str, Outcome] = {}


@pytest.fixture(scope="module")
def gdb_present() -> None:
    if shutil.which("gdb") is None:
        pytest.skip("gdb not found: the MI differential runner compares against it")


def unexplained(differences: list[Difference]) -> list[Difference]:
    return [d for d in differences if not any(gap.explains(d) for gap in KNOWN_GAPS)]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_mi_agrees_with_gdb(gdb_present: None, builder: Builder, scenario: MiScenario) -> None:
    outcome = diff(scenario, builder)
    _outcomes[scenario.name] = outcome
    assert outcome.gdb and not any(step.error for step in outcome.gdb), (
        "gdb itself did not get through the scenario: the scenario is broken"
    )
    others = [d for d in outcome.differences if not d.client]
    known = [d for d in outcome.client_differences if d not in unexplained([d])]
    for title, found in (("known gaps", known), ("fields no client reads", others)):
        if found:
            print(f"{len(found)} differences in {title}:")
            for difference in found:
                print(f"  {difference}")
    broke = [step for step in outcome.ours if step.error]
    assert not broke, f"our server broke at {broke[0].command!r}: {broke[0].error}"
    new = unexplained(outcome.client_differences)
    assert not new, "\n".join(str(d) for d in new)


def test_known_gaps_still_occur(gdb_present: None) -> None:
    """Runs after the scenarios (file order): a gap that no longer occurs must go."""
    if len(_outcomes) < len(SCENARIOS):
        pytest.skip("not every scenario ran in this session")
    everything = [d for outcome in _outcomes.values() for d in outcome.client_differences]
    stale = [gap.reason for gap in KNOWN_GAPS if not any(gap.explains(d) for d in everything)]
    assert not stale, "fixed, remove from KNOWN_GAPS:\n" + "\n".join(stale)
