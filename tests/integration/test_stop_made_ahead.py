"""At a stop, the stopped thread's stack and the top frame's variables that the front end
asked for at the last stop are made on the engine's thread before the stop is told
(askedstacks.py): DAP's stackTrace, scopes and variables at each later stop are answered
from the stop cache on the caller's thread, with the values of this stop."""

from __future__ import annotations

import threading
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
def made(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """What was made (a stack, a scope's variables), each with the thread that made it."""
    looked: list[tuple[str, str]] = []
    scope_values = vars(frames)["scope_values"]
    stack_frames = frames.Frames._stack_frames

    def counting_values(symbols: Any, view: Any, scope: VariableScope, lookup_pc: int) -> Any:
        looked.append((scope.name, threading.current_thread().name))
        return scope_values(symbols, view, scope, lookup_pc)

    def counting_stack(self: frames.Frames, *args: Any) -> Any:
        looked.append(("STACK", threading.current_thread().name))
        return stack_frames(self, *args)

    monkeypatch.setattr(frames, "scope_values", counting_values)
    monkeypatch.setattr(frames.Frames, "_stack_frames", counting_stack)
    return looked


def inspect(debugger: Any, tid: int) -> tuple[list[str], list[tuple[str, str]]]:
    """What DAP asks at a stop: the stack, the top frame's locals (and its arguments)."""
    stack = debugger.stack_trace(tid, 0, 21)
    locals_ = debugger.frame_variables(tid, 0, VariableScope.LOCALS, entry_values=False)
    arguments = debugger.frame_variables(tid, 0, VariableScope.ARGUMENTS, entry_values=False)
    return [f.function for f in stack], [(v.name, v.value) for v in locals_ + arguments]


def test_later_stops_are_answered_from_what_the_stop_made(
    debugger: Any, events: EventLog, builder: Builder, made: list[tuple[str, str]]
) -> None:
    launch(debugger, builder.build("mi_prog"))
    line = marker_line(PROGRAMS_DIR / "mi_prog.c", "add_body")
    [location] = debugger.resolve_location(f"mi_prog.c:{line}")
    debugger.insert_breakpoint(location.address)
    debugger.resume()
    tid = events.wait_for(Stopped, timeout=30).thread_id
    first = inspect(debugger, tid)
    made.clear()
    debugger.resume()
    tid = events.wait_for(Stopped, timeout=30).thread_id
    before_asked = list(made)  # made with the stop, before it was told
    later = inspect(debugger, tid)
    assert made == before_asked  # nothing made when asked: no handoff to the engine
    assert sorted(what for what, _ in made) == ["ARGUMENTS", "LOCALS", "STACK"]
    assert threading.current_thread().name not in {name for _, name in made}  # the engine's
    assert later[0] == first[0] and later[0][:2] == ["add", "main"]
    assert dict(first[1])["a"] != dict(later[1])["a"]  # this stop's values, not the last's
