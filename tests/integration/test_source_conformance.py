"""The differential runner (conformance/source_diff.py) over C, C++ and Rust scenarios: stop
lines, backtraces (function and line per frame, up to main) and argument/local values must
agree with gdb's."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.source_diff import SCENARIOS, Builders, Scenario, diff
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder
from tests.support.core_backend import INLINE_HIDDEN_BY_A_LIVE_STEP

pytestmark = [pytest.mark.timeout(120), pytest.mark.both_backends]


@pytest.fixture(scope="module")
def builders(builder: Builder) -> Builders:
    return Builders(builder, MoreBuilder(builder.cache_dir))


@pytest.mark.core_xfail(reason=INLINE_HIDDEN_BY_A_LIVE_STEP, params=("inline-O2",))
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_engine_agrees_with_gdb(debugger: Any, builders: Builders, scenario: Scenario) -> None:
    reason = builders.available(scenario)
    if reason is not None:
        pytest.skip(reason)
    outcome = diff(scenario, builders, engine=debugger)
    assert outcome.gdb, "gdb never stopped: the scenario is broken"
    assert not outcome.differences, "\n".join(str(d) for d in outcome.differences)
    assert outcome.agreements >= 1 + 2 * len(outcome.gdb)
