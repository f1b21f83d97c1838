"""`next` over lines of straight-line code, which the engine runs to their end with one trap
instead of single steps: the stops must be the same, a breakpoint inside such a run stops
the step there (as a single step onto it would), and the values are the program's."""

from __future__ import annotations

from typing import Any

import pytest

from aliceserver.debuggers.events import Stopped, StopReason
from aliceserver.debuggers.model import StepKind, VariableScope
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.events import EventLog
from tests.support.session import launch

pytestmark = [pytest.mark.timeout(120), pytest.mark.both_backends]

SOURCE = PROGRAMS_DIR / "straight_runs.c"


def _stop_at(debugger: Any, events: EventLog, builder: Builder, marker: str) -> int:
    program = builder.build("straight_runs")
    launch(debugger, program)
    [place] = debugger.resolve_location(f"straight_runs.c:{marker_line(SOURCE, marker)}")
    entry = debugger.insert_breakpoint(place.address)
    debugger.resume()
    stop = events.wait_for(Stopped, timeout=20)
    debugger.remove_breakpoint(entry.id)
    return stop.thread_id


def _line(debugger: Any, tid: int) -> int | None:
    top = debugger.stack_trace(tid, 0, 1)[0]
    return top.source.line if top.source else None


def _local(debugger: Any, tid: int, name: str) -> str:
    return next(v.value for v in debugger.frame_variables(tid, 0, VariableScope.LOCALS) if v.name == name)


def test_next_runs_straight_lines_to_the_next_line(debugger: Any, events: EventLog, builder: Builder) -> None:
    tid = _stop_at(debugger, events, builder, "straight")
    debugger.step(tid, StepKind.OVER)
    assert events.wait_for(Stopped, timeout=20).reason is StopReason.STEP
    assert _line(debugger, tid) == marker_line(SOURCE, "second")
    assert _local(debugger, tid, "x") == str(1 * 3 + 2 * 5 - 3 * 7 + (1 ^ 2) - (2 | 3))
    debugger.step(tid, StepKind.OVER)
    assert events.wait_for(Stopped, timeout=20).reason is StopReason.STEP
    assert _line(debugger, tid) == marker_line(SOURCE, "last")


def test_a_breakpoint_inside_a_straight_run_stops_the_next(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    tid = _stop_at(debugger, events, builder, "straight")
    start = debugger.stack_trace(tid, 0, 1)[0].pc
    [following] = debugger.resolve_location(f"straight_runs.c:{marker_line(SOURCE, 'second')}")
    code = [i for i in debugger.disassemble(start, 40) if i.address < following.address]
    jumps = [i for i in code if i.mnemonic.startswith(("j", "call", "ret"))]
    assert len(code) >= 8 and not jumps, code  # the line is one straight run
    middle = code[5].address
    inside = debugger.insert_breakpoint(middle)
    debugger.step(tid, StepKind.OVER)
    stop = events.wait_for(Stopped, timeout=20)
    assert stop.reason is StopReason.BREAKPOINT and stop.breakpoint_ids == (inside.id,)
    assert debugger.stack_trace(tid, 0, 1)[0].pc == middle
    [info] = [b for b in debugger.breakpoints() if b.id == inside.id]
    assert info.hit_count == 1
    debugger.step(tid, StepKind.OVER)  # from the breakpoint: the rest of the line
    assert events.wait_for(Stopped, timeout=20).reason is StopReason.STEP
    assert _line(debugger, tid) == marker_line(SOURCE, "second")
