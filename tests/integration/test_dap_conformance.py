"""The DAP differential runner (conformance/dap_diff.py): our adapter against lldb-vscode-16.

Stop reasons, positions, frames (names; lines in the program's source) and the top frame's
values must agree, and every message our adapter sends must conform to the schema. Skipped
when lldb-vscode-16 is absent (Debian: lldb-16; scripts/setup.sh installs it).
"""

from __future__ import annotations

import pytest

from conformance.dap_diff import SCENARIOS, AdapterSide, DapScenario, by_name, diff, sides
from tests.support.build import Builder
from tests.support.dap_schema import require_schema

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def adapters() -> tuple[AdapterSide, AdapterSide]:
    lldb, ours = sides()
    if lldb is None:
        pytest.skip("lldb-vscode-16 not found (Debian package lldb-16)")
    return lldb, ours


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_adapter_agrees_with_lldb_vscode(
    adapters: tuple[AdapterSide, AdapterSide], builder: Builder, scenario: DapScenario
) -> None:
    lldb, ours = adapters
    outcome = diff(scenario, builder, lldb, ours)
    assert outcome.lldb, "lldb-vscode never stopped: the scenario is broken"
    assert not outcome.differences, "\n".join(str(d) for d in outcome.differences)
    # Without the schema (a fresh clone) this only covers sequence numbers; the test
    # below is the one that claims schema conformance, and skips when it cannot.
    assert not outcome.protocol_problems, "\n".join(outcome.protocol_problems)


def test_our_messages_conform_to_the_schema(
    adapters: tuple[AdapterSide, AdapterSide], builder: Builder
) -> None:
    require_schema()
    lldb, ours = adapters
    for scenario in by_name(["dap-step", "basic-values"]):
        outcome = diff(scenario, builder, lldb, ours)
        assert outcome.ours, "our adapter never stopped"
        assert not outcome.protocol_problems, "\n".join(outcome.protocol_problems)
