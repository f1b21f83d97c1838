"""conformance/source_diff.py --remote over a handful of scenarios: each side debugs the
program through its own gdbserver (gdb with `target remote`, the engine through its
RemoteTargets capability) and stop lines, backtraces and argument/local values agree with
gdb's over the same stub: stepping, a second thread, a watchpoint, a shared library and
libstdc++'s printers."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.source_diff import Builders, Scenario, by_name, diff
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder
from tests.support.gdbserver import gdbserver_path

pytestmark = [pytest.mark.timeout(120)]

NAMES = ("basic-into", "basic-signal", "lines-ternary", "inline-O2-steps", "cpp-method",
         "threads-worker", "watch-global", "watch-local", "solib-step", "cpp-printers")  # fmt: skip


@pytest.fixture(scope="module")
def builders(builder: Builder) -> Builders:
    return Builders(builder, MoreBuilder(builder.cache_dir))


@pytest.mark.parametrize("scenario", by_name(NAMES), ids=NAMES)
def test_engine_over_a_stub_agrees_with_gdb_over_one(
    debugger: Any, builders: Builders, scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    gdbserver_path()  # skips without gdbserver
    reason = builders.available(scenario)
    if reason is not None:
        pytest.skip(reason)
    connected: list[str] = []
    connect = debugger.connect_remote

    def connect_and_note(target: str, **options: Any) -> Any:
        connected.append(target)
        return connect(target, **options)

    monkeypatch.setattr(debugger, "connect_remote", connect_and_note)
    outcome = diff(scenario, builders, engine=debugger, remote=True)
    assert len(connected) == 1, "the engine did not debug the program through the stub"
    assert outcome.gdb, "gdb never stopped: the scenario is broken"
    assert not outcome.differences, "\n".join(str(d) for d in outcome.differences)
    assert outcome.agreements >= 1 + 2 * len(outcome.gdb)
