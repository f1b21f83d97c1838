"""A watchpoint on a local dies with its frame, as in gdb: deleted and reported when the
frame returns (at the caller's resume address), when a step or finish leaves it, or when
it fires after the frame was left by longjmp; a watch on a global lives on."""

from __future__ import annotations

from typing import Any

import pytest

from aliceserver.debuggers.events import Stopped, StopReason
from aliceserver.debuggers.model import StepKind, WatchKind
from tests.support.build import Builder, marker_line
from tests.support.events import EventLog
from tests.support.gdb import gdb_path, run_gdb
from tests.support.session import continue_to_exit, continue_to_stop, launch

pytestmark = pytest.mark.timeout(60)

SOURCE = "watch_scope.c"


def line(name: str) -> int:
    return marker_line(SOURCE, name)


def stop_at(debugger: Any, events: EventLog, spec: str, hits: int = 1) -> Stopped:
    """Run to the `hits`-th hit of a breakpoint at `spec`, then remove it."""
    bp = debugger.insert_location_breakpoint(spec)
    for _ in range(hits):
        stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    debugger.remove_location_breakpoint(bp.id)
    return stop


def where(debugger: Any, stop: Stopped) -> tuple[str | None, int | None, int]:
    frame = debugger.stack_trace(stop.thread_id, 0, 1)[0]
    return frame.function, frame.source.line if frame.source else None, frame.pc


def return_address_of_call(debugger: Any, stop: Stopped) -> int:
    return debugger.stack_trace(stop.thread_id, 0, 2)[1].pc


def test_local_watch_dies_when_its_frame_returns(debugger: Any, events: EventLog, builder: Builder) -> None:
    launch(debugger, builder.build("watch_scope"))
    first = stop_at(debugger, events, f"{SOURCE}:{line('compute')}")
    resume_at = return_address_of_call(debugger, first)
    acc = debugger.watch_expression("acc", WatchKind.WRITE, first.thread_id, 0)
    total = debugger.watch_expression("global_total", WatchKind.WRITE, first.thread_id, 0)
    cfa = debugger.stack_trace(first.thread_id, 0, 1)[0].cfa
    assert acc.scope is not None and (acc.scope.thread_id, acc.scope.frame_cfa) == (first.thread_id, cfa)
    assert total.scope is None  # globals only: no frame to die with
    stops = []
    while True:
        stop = continue_to_stop(debugger, events)
        stops.append(stop)
        if stop.reason is not StopReason.WATCHPOINT:
            break
        assert where(debugger, stop)[0] == "compute", stops
    assert [s.breakpoint_ids for s in stops[:-1]][-1] == (total.id,)  # global_total += acc
    assert {s.breakpoint_ids for s in stops[:-2]} == {(acc.id,)}  # acc = 1, 3, 6
    scope = stops[-1]
    assert scope.reason is StopReason.WATCHPOINT_SCOPE, stops
    assert scope.breakpoint_ids == scope.watches_left == (acc.id,)
    # Stopped in the caller right after the call returned, as gdb: mid-line, at the return address.
    assert where(debugger, scope) == ("main", line("call"), resume_at)
    assert [w.id for w in debugger.watchpoints()] == [total.id]
    # The global still fires in the second call, and nothing reports the dead local again.
    again = continue_to_stop(debugger, events, StopReason.WATCHPOINT)
    assert again.breakpoint_ids == (total.id,) and where(debugger, again)[0] == "compute"
    debugger.remove_watchpoint(total.id)
    assert continue_to_exit(debugger, events).code == 0


def test_recursion_only_the_watched_frame_counts(debugger: Any, events: EventLog, builder: Builder) -> None:
    """depth(1)'s local: depth(0) returning to the same address leaves it alive; depth(1)
    returning into depth(2) ends it."""
    launch(debugger, builder.build("watch_scope"))
    stop = stop_at(debugger, events, f"{SOURCE}:{line('recurse')}", hits=2)
    assert debugger.evaluate("n", stop.thread_id, 0).value == "1"
    local = debugger.watch_expression("local", WatchKind.WRITE, stop.thread_id, 0)
    values = []
    while (stop := continue_to_stop(debugger, events)).reason is StopReason.WATCHPOINT:
        assert debugger.evaluate("n", stop.thread_id, 0).value == "1"
        values.append(int.from_bytes(stop.watch_new or b"", "little"))
    assert values == [11, 12]
    assert stop.reason is StopReason.WATCHPOINT_SCOPE and stop.watches_left == (local.id,)
    function, at, _ = where(debugger, stop)
    assert (function, at) == ("depth", line("recurse"))
    assert debugger.evaluate("n", stop.thread_id, 0).value == "2"
    assert debugger.watchpoints() == []
    assert continue_to_exit(debugger, events).code == 0


def test_finish_out_of_the_frame_reports_both(debugger: Any, events: EventLog, builder: Builder) -> None:
    launch(debugger, builder.build("watch_scope"))
    stop = stop_at(debugger, events, f"{SOURCE}:{line('return')}")
    acc = debugger.watch_expression("acc", WatchKind.WRITE, stop.thread_id, 0)
    debugger.step(stop.thread_id, StepKind.OUT)
    done = events.wait_for(Stopped, timeout=10)
    assert done.reason is StopReason.FUNCTION_FINISHED and done.watches_left == (acc.id,)
    assert done.return_value is not None and done.return_value.value == "6"
    assert where(debugger, done)[:2] == ("main", line("call"))
    assert debugger.watchpoints() == []


@pytest.mark.parametrize("kind", [StepKind.OVER, StepKind.INSTRUCTION])
def test_stepping_out_of_the_frame_stops_at_the_return(
    debugger: Any, events: EventLog, builder: Builder, kind: StepKind
) -> None:
    """`next` or `stepi` over the `ret`: gdb stops at the return address with the scope
    message (a `next` does not go on to the line's end)."""
    launch(debugger, builder.build("watch_scope"))
    stop = stop_at(debugger, events, f"{SOURCE}:{line('compute-end')}")
    resume_at = return_address_of_call(debugger, stop)
    acc = debugger.watch_expression("acc", WatchKind.WRITE, stop.thread_id, 0)
    for _ in range(10):
        debugger.step(stop.thread_id, kind)
        stop = events.wait_for(Stopped, timeout=10)
        if stop.reason is not StopReason.STEP:
            break
    assert stop.reason is StopReason.WATCHPOINT_SCOPE and stop.watches_left == (acc.id,)
    assert where(debugger, stop) == ("main", line("call"), resume_at)
    assert debugger.watchpoints() == []


def test_longjmp_out_of_the_frame(debugger: Any, events: EventLog, builder: Builder) -> None:
    """Left by longjmp, the frame never returns: the watch fires when another frame
    writes its memory, and ends there instead (gdb: in reuse, the scope message)."""
    launch(debugger, builder.build("watch_scope"))
    stop = stop_at(debugger, events, f"{SOURCE}:{line('jumper')}")
    slot = debugger.watch_expression("slot", WatchKind.WRITE, stop.thread_id, 0)
    while (stop := continue_to_stop(debugger, events)).reason is StopReason.WATCHPOINT:
        assert where(debugger, stop)[0] == "jumper"
    assert stop.reason is StopReason.WATCHPOINT_SCOPE and stop.watches_left == (slot.id,)
    assert where(debugger, stop)[0] == "reuse"
    assert debugger.watchpoints() == []
    assert continue_to_exit(debugger, events).code == 0


@pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle")
def test_scope_stop_where_gdb_stops(debugger: Any, events: EventLog, builder: Builder) -> None:
    program = builder.build("watch_scope")
    replies = run_gdb(program, [f"break {SOURCE}:{line('compute')}", "run", "watch acc",
                                "continue", "continue", "continue", "continue"])
    assert "Watchpoint 2 deleted because the program has left the block in\nwhich its expression is valid.\n" in replies[-1].output
    gdb_stop = replies[-1].where
    assert gdb_stop is not None
    launch(debugger, program)  # both without address randomization: the same addresses
    first = stop_at(debugger, events, f"{SOURCE}:{line('compute')}")
    debugger.watch_expression("acc", WatchKind.WRITE, first.thread_id, 0)
    while (stop := continue_to_stop(debugger, events)).reason is StopReason.WATCHPOINT:
        pass
    assert stop.reason is StopReason.WATCHPOINT_SCOPE
    assert where(debugger, stop) == (gdb_stop.function, gdb_stop.line, gdb_stop.pc)
    debugger.kill()
