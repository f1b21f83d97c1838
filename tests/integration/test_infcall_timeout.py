"""A call into the program that runs past the engine's time limit (gdb 13 has none; ours
is 30 s, CallSettings.timeout, set to 1 s here) stops the program inside the call with gdb
14's words for a timed-out call, below it gdb's <function called from gdb> frame and then the
caller's frames."""

from __future__ import annotations

import subprocess
import time

import pytest

from aliceserver.debuggers.events import Stopped, StopReason
from aliceserver.debuggers.ptrace.engine import PtraceDebugger
from aliceserver.errors import AliceError
from tests.support.build import Builder, marker_line
from tests.support.events import EventLog
from tests.support.session import continue_to_stop, launch

pytestmark = [pytest.mark.timeout(120)]


def timed_out_call(debugger: PtraceDebugger, events: EventLog) -> tuple[Stopped, str]:
    """`forever()` called at infcall.c's main marker with a time limit of 1 s: the stop at
    the marker, and the error the call ended in (after 1 s, before 10) with the stop it
    made (the breakpoint's was claimed: this one is the call's, told to every front end)."""
    address = debugger.resolve_location(f"infcall.c:{marker_line('infcall.c', 'main')}")[0].address
    debugger.insert_breakpoint(address)
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    debugger.call_settings.timeout = 1.0
    started = time.monotonic()
    with pytest.raises(AliceError) as raised:
        debugger.evaluate("forever()", stop.thread_id)
    assert 1.0 <= time.monotonic() - started < 10.0
    stopped = events.wait_for(Stopped)
    assert stopped.thread_id == stop.thread_id
    return stop, str(raised.value)


def test_a_call_past_the_time_limit_stops_inside_it(
    debugger: PtraceDebugger, events: EventLog, builder: Builder
) -> None:
    program = builder.build("infcall", flags=("-g", "-O0", "-pthread", "-no-pie"))
    launch(debugger, program)
    stop, error = timed_out_call(debugger, events)
    assert error == (
        "The program being debugged timed out while in a function called from GDB.\n"
        "GDB remains in the frame where the timeout occurred.\n"
        "Evaluation of the expression containing the function\n"
        "(forever) will be abandoned.\n"
        "When the function is done executing, GDB will silently stop."
    )
    frames = debugger.stack_trace(stop.thread_id)  # the call's frame, then the caller's (gdb's)
    assert frames[0].function == "forever" and frames[2].function == "main"
    assert frames[1].called_from_debugger and frames[1].function == "<function called from gdb>"
    assert debugger.evaluate("spins > 0", stop.thread_id).value == "1"


def test_a_call_leaves_the_servers_other_children_alone(
    debugger: PtraceDebugger, events: EventLog, builder: Builder
) -> None:
    """A child of the server that is no tracee (a helper process, another session's tool)
    ending while a call runs keeps its exit status for whoever started it: the call's wait
    is for the tracer thread's own tracees (__WNOTHREAD), as every other wait of the engine."""
    program = builder.build("infcall", flags=("-g", "-O0", "-pthread", "-no-pie"))
    launch(debugger, program)
    helper = subprocess.Popen(["sh", "-c", "sleep 0.3; exit 7"])
    try:
        timed_out_call(debugger, events)  # runs 1 s: the helper ends meanwhile
    finally:
        code = helper.wait(timeout=30)
    assert code == 7  # 0 when the call's waitpid(-1) had reaped it (Popen then sees ECHILD)
