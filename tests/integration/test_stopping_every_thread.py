"""All-stop's wait for every thread (Inferior._stop_others) where the leader does not stop
at once, or ever; a hang fails a test and its cleanup frees the engine (no zombie left).

- The leader waits in vfork (vfork_stops.c) as another thread stops for SIGUSR1: the
  interrupt sent to it is spent by the vfork-done event it stops at first (any ptrace-stop
  spends one); the engine took it for pending still and never interrupted the leader
  again: at the next stop it waited for it forever.
- The program is killed meanwhile: the leader is a zombie whose status the kernel holds
  back while another thread is unreaped, and the engine waited for it by its tid alone,
  forever (the tracer and the program's zombies stuck for good, SIGKILL or not).
- The leader exited alone (pthread_exit, leader_exits.c): a zombie, it makes no stop, and
  the engine waited for one forever."""

from __future__ import annotations

import os
import signal
import time
from typing import Any

import pytest

from aliceserver.debuggers.events import Exited, Stopped, StopReason
from tests.support.build import Builder
from tests.support.events import EventLog
from tests.support.session import launch

pytestmark = pytest.mark.timeout(120)

_WALL = 0x40000000  # __WALL: the program's threads are clones
_PATIENCE = 30.0


def test_a_stop_after_one_the_leader_left_vfork_for(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    pid = launch(debugger, builder.build("vfork_stops")).pid
    for _ in range(2):
        debugger.resume()
        stop = _next(events, Stopped, pid)
        assert (stop.reason, stop.signal) == (StopReason.SIGNAL, signal.SIGUSR1)
    debugger.resume()
    assert _next(events, Exited, pid).code == 0


def test_a_program_killed_while_its_threads_are_stopped_exits(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    pid = launch(debugger, builder.build("vfork_stops"), ["kill"]).pid
    debugger.resume()  # the child kills it while the engine waits for the leader
    exited = _next(events, Exited, pid)
    assert (exited.code, exited.signal) == (None, signal.SIGKILL)


def test_a_stop_after_the_leader_exited_alone(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    # The leader's pthread_exit leaves it a zombie that tells nothing while its threads live.
    pid = launch(debugger, builder.build("leader_exits")).pid
    debugger.resume()
    stop = _next(events, Stopped, pid)
    assert (stop.reason, stop.signal) == (StopReason.SIGNAL, signal.SIGUSR1)
    debugger.resume()
    assert _next(events, Exited, pid).code == 0


def _next(events: EventLog, kind: type[Stopped] | type[Exited], pid: int) -> Any:
    try:
        return events.wait_for(kind, timeout=_PATIENCE)
    except AssertionError:
        _free_the_engine(events, pid)
        pytest.fail(f"the engine hung stopping the program's threads (waiting for {kind.__name__})")


def _free_the_engine(events: EventLog, pid: int) -> None:
    """Kill the program and reap its threads but the leader from this thread: the
    leader's status comes then, and the engine's wait for it returns."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + _PATIENCE
    while time.monotonic() < deadline:
        try:
            tids = [int(tid) for tid in os.listdir(f"/proc/{pid}/task")]
        except FileNotFoundError:
            tids = []
        for tid in tids:
            if tid != pid:
                try:
                    os.waitpid(tid, _WALL | os.WNOHANG)
                except ChildProcessError:
                    pass
        try:
            events.wait_for(Exited, timeout=0.2)
            return
        except AssertionError:
            pass
