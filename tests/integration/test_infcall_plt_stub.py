"""Calls into the program through an unresolved PLT stub ((int)'solib_step@plt'(2) at a stop
in main of a program linked lazily against its own library: the loader's resolver runs, then
the function), compared with gdb 13.

The engine wakes its tracer for a command by a SIGSTOP to the program (engine.py). A command
sent just as the program stopped (the MI console refreshing its breakpoints at a library
event) leaves that SIGSTOP pending while every thread is stopped, and the first thread
resumed takes it: in a call, the calling thread, stopped before its first instruction. The
call loop parked it as the engine's wake-up and waited for a status that never came (the
time limit's SIGSTOP could not reach a stopped thread either): the session hung about once
in ten runs. Now the call takes the wake-up and goes on, and no status leaves the calling
thread stopped while the call waits."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from aliceserver.debuggers.events import StopReason
from aliceserver.debuggers.ptrace.engine import PtraceDebugger
from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder, marker_line
from tests.support.events import EventLog
from tests.support.gdb_calls import gdb_could_not_call
from tests.support.session import continue_to_exit, continue_to_stop, launch

pytestmark = [pytest.mark.timeout(240)]

CALLS = 20


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    library = builder.build("lib_solib", extra=["-shared", "-fPIC"])
    return builder.build("solib_main", extra=["-Wl,--no-as-needed", str(library)])


def _wake_raced_the_stop(debugger: PtraceDebugger) -> None:
    """What a command sent as the program stopped leaves: the engine's wake-up SIGSTOP
    pending on the stopped program, and the engine expecting it."""
    inferior = debugger._access.inferior
    assert inferior is not None
    inferior.wake_sent = True
    os.kill(inferior.pid, signal.SIGSTOP)


@pytest.mark.timeout(90)
def test_a_call_takes_the_engines_pending_wake_up(
    debugger: PtraceDebugger, events: EventLog, program: Path
) -> None:
    launch(debugger, program)
    address = debugger.resolve_location(f"solib_main.c:{marker_line('solib_main.c', 'first')}")[0].address
    debugger.insert_breakpoint(address)
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    _wake_raced_the_stop(debugger)
    assert debugger.evaluate("(int)'solib_step@plt'(2)", stop.thread_id).value == "4"  # resolved by the loader
    _wake_raced_the_stop(debugger)
    assert debugger.evaluate("solib_step(2)", stop.thread_id).value == "8"
    assert debugger.evaluate("solib_counter", stop.thread_id).value == "4"
    continue_to_exit(debugger, events)  # the engine serves on, the program runs to its end


@needs_gdb
@pytest.mark.parametrize("session", range(4))
def test_calls_through_the_stub_like_gdb(program: Path, session: int) -> None:
    commands = ["break main", "run", *["print (int)'solib_step@plt'(2)"] * CALLS, "print solib_counter", "continue"]
    args = ["-batch", "-nx", *ex(*commands), str(program)]
    gdbs, got = theirs(args, program.parent), ours(args, program.parent)
    stdout, stderr = normalized(gdbs.stdout), normalized(gdbs.stderr)
    if gdb_could_not_call(gdbs.stderr):
        # gdb's calls ran (the counter grew) but it could not put the registers back after
        # each, so it printed no value: solib_step(2) returns the counter doubled, 2 more each.
        counter = f"$1 = {2 * CALLS}"
        assert counter in stdout.splitlines()
        values = [f"${k} = {4 * k}" for k in range(1, CALLS + 1)] + [f"${CALLS + 1} = {2 * CALLS}"]
        stdout = stdout.replace(counter, "\n".join(values))
        stderr = "\n".join(line for line in stderr.splitlines() if not gdb_could_not_call(line))
    assert (normalized(got.stdout), got.returncode) == (stdout, gdbs.returncode)
    assert normalized(got.stderr) == stderr
    assert f"${CALLS} = {4 * CALLS}\n" in got.stdout
