"""A front end that shows no entry values (DAP) lists a frame's locals and its arguments
side by side: asking for one scope makes the other in the same handoff to the engine, and
the other is then answered as made; a front end with entry values (MI) gets only what it asked.
A top frame asked for with its arguments (MI's *stopped) brings them in the same handoff;
a top frame alone (a console step's line) makes none."""

from __future__ import annotations

from typing import Any

import pytest

from aliceserver.debuggers.events import Stopped
from aliceserver.debuggers.model import VariableScope
from aliceserver.debuggers.source import frames
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.events import EventLog
from tests.support.session import launch

pytestmark = [pytest.mark.timeout(120)]


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[VariableScope]:
    """The scopes whose variables were looked up in the DWARF, in order."""
    looked: list[VariableScope] = []
    scope_values = vars(frames)["scope_values"]  # imported there from scopevalues.py

    def counting(symbols: Any, view: Any, scope: VariableScope, lookup_pc: int) -> Any:
        looked.append(scope)
        return scope_values(symbols, view, scope, lookup_pc)

    monkeypatch.setattr(frames, "scope_values", counting)
    return looked


def stop_in_add(debugger: Any, events: EventLog, builder: Builder) -> int:
    launch(debugger, builder.build("mi_prog"))
    line = marker_line(PROGRAMS_DIR / "mi_prog.c", "add_body")
    [location] = debugger.resolve_location(f"mi_prog.c:{line}")
    debugger.insert_breakpoint(location.address)
    debugger.resume()
    stop: Stopped = events.wait_for(Stopped, timeout=30)
    return stop.thread_id


def test_locals_bring_the_arguments_along(
    debugger: Any, events: EventLog, builder: Builder, made: list[VariableScope]
) -> None:
    tid = stop_in_add(debugger, events, builder)
    locals_ = debugger.frame_variables(tid, 0, VariableScope.LOCALS, entry_values=False)
    assert made == [VariableScope.LOCALS, VariableScope.ARGUMENTS]
    arguments = debugger.frame_variables(tid, 0, VariableScope.ARGUMENTS, entry_values=False)
    assert made == [VariableScope.LOCALS, VariableScope.ARGUMENTS]  # not looked up again
    assert [v.name for v in locals_] == ["sum"]
    assert [(v.name, v.entry) for v in arguments] == [("a", None), ("b", None)]
    assert [v.value for v in arguments] == [
        v.value
        for v in debugger.frame_variables(tid, 0, VariableScope.ARGUMENTS, entry_values=False)
    ]


def test_with_entry_values_only_the_scope_asked_is_made(
    debugger: Any, events: EventLog, builder: Builder, made: list[VariableScope]
) -> None:
    tid = stop_in_add(debugger, events, builder)
    debugger.frame_variables(tid, 0, VariableScope.ARGUMENTS)
    assert made == [VariableScope.ARGUMENTS]


def test_a_top_frame_alone_brings_its_arguments(
    debugger: Any, events: EventLog, builder: Builder, made: list[VariableScope]
) -> None:
    tid = stop_in_add(debugger, events, builder)
    debugger.stack_trace(tid, 0, 20)  # a stack: no arguments made
    debugger.stack_trace(tid, 0, 1)  # a console step's line: nor here, nobody shows them
    assert made == []
    debugger.stack_trace(tid, 0, 1, arguments=True)
    assert made == [VariableScope.ARGUMENTS]
    arguments = debugger.frame_variables(tid, 0, VariableScope.ARGUMENTS, aggregate_values=False)
    assert [v.name for v in arguments] == ["a", "b"] and made == [VariableScope.ARGUMENTS]
