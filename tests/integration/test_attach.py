"""Interrupting a running program; attaching to and detaching from a process we started."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest

from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.events import Exited, ProcessStarted, Stopped, StopReason
from aliceserver.debuggers.model import ThreadState
from aliceserver.errors import TargetError
from tests.support.build import Builder
from tests.support.events import EventLog
from tests.support.procs import proc_state, read_available, read_status
from tests.support.session import continue_to_exit, continue_to_stop, launch

pytestmark = pytest.mark.timeout(60)

TICK = re.compile(rb"tick (\d+)\n")


@pytest.fixture
def longrun(builder: Builder) -> Iterator["subprocess.Popen[bytes]"]:
    """The long-running ticker, started by us; killed and reaped after the test."""
    proc = subprocess.Popen(
        [str(builder.build("longrun"))], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    try:
        assert proc.stdout is not None
        assert TICK.search(read_available(proc.stdout.fileno(), 5.0)), "the ticker did not start"
        yield proc
    finally:
        proc.kill()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()


def last_tick(proc: "subprocess.Popen[bytes]", timeout: float = 2.0) -> int | None:
    assert proc.stdout is not None
    ticks = TICK.findall(read_available(proc.stdout.fileno(), timeout))
    return int(ticks[-1]) if ticks else None


def wait_untraced(pid: int, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while (status := read_status(pid)) is not None and status.tracer_pid != 0:
        assert time.monotonic() < deadline, f"process {pid} is still traced by {status.tracer_pid}"
        time.sleep(0.02)
    assert "TracerPid:\t0\n" in Path(f"/proc/{pid}/status").read_text()


def test_interrupt_running_program(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    info = launch(debugger, builder.build("spin"))
    for _ in range(2):  # interrupt, resume, interrupt again
        debugger.resume()
        events.settle(0.3)
        assert debugger.is_running() and not events.of_type(Exited)
        debugger.interrupt()
        stop = events.wait_for(Stopped)
        assert stop.reason == StopReason.PAUSE and stop.all_threads
        assert stop.thread_id == info.pid
        assert not debugger.is_running()
        assert proc_state(info.pid) == "t"
        [thread] = debugger.threads()
        assert thread.state == ThreadState.STOPPED
        assert thread.pc == debugger.read_registers(info.pid)["rip"] == stop.address
    debugger.kill()
    assert events.wait_for(Exited).signal == 9


def test_attach_and_detach(
    debugger: IDebugger, events: EventLog, longrun: "subprocess.Popen[bytes]"
) -> None:
    pid = longrun.pid
    info = debugger.attach(pid)
    assert info.pid == pid and info.attached
    stop = events.wait_for(Stopped)
    assert stop.reason == StopReason.PAUSE and stop.thread_id == pid
    started = events.wait_for(ProcessStarted)
    assert started.pid == pid and started.attached
    assert read_status(pid) is not None and read_status(pid).tracer_pid != 0  # type: ignore[union-attr]
    assert proc_state(pid) == "t"
    [thread] = debugger.threads()
    assert thread.tid == pid and thread.name == "longrun" and thread.state == ThreadState.STOPPED
    # Stopped: no progress while attached.
    last_tick(longrun, 0.1)  # drain what was printed before the stop
    assert last_tick(longrun, 0.3) is None
    # Control: a breakpoint in the loop stops it, reading the counter works.
    ticks_addr = debugger.lookup_symbol("ticks")
    bp = debugger.insert_breakpoint(debugger.lookup_symbol("tick"))
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert stop.breakpoint_ids == (bp.id,)
    before = int.from_bytes(debugger.read_memory(ticks_addr, 8), "little")
    assert before > 0
    debugger.detach()
    wait_untraced(pid)
    # Untraced and unharmed: it keeps ticking past the breakpoint (a leftover trap would kill it).
    time.sleep(0.3)
    assert longrun.poll() is None, f"the program died after detach: {longrun.returncode}"
    assert proc_state(pid) in ("R", "S")
    tick = last_tick(longrun, 2.0)
    assert tick is not None and tick > before
    later = last_tick(longrun, 2.0)
    assert later is not None and later > tick


def test_close_detaches_attached_process(
    builder: Builder, longrun: "subprocess.Popen[bytes]"
) -> None:
    engine = importlib.import_module("aliceserver.debuggers.ptrace.engine")
    dbg = engine.PtraceDebugger()
    log = EventLog(dbg)
    try:
        dbg.attach(longrun.pid)
        log.wait_for(Stopped)
    finally:
        dbg.close()
    wait_untraced(longrun.pid)
    assert longrun.poll() is None
    last_tick(longrun, 0.1)
    assert last_tick(longrun, 2.0) is not None


def test_attach_errors_leave_engine_usable(
    debugger: IDebugger, events: EventLog, builder: Builder, longrun: "subprocess.Popen[bytes]"
) -> None:
    pid_max = int(Path("/proc/sys/kernel/pid_max").read_text())
    with pytest.raises(TargetError):
        debugger.attach(pid_max + 1)  # no such process can exist
    with pytest.raises(TargetError):
        debugger.attach(os.getpid())  # our own process: the kernel refuses
    # (pid 1 is deliberately not used: as root it may be traceable, and it is not ours to stop.)
    # A process another debugger already traces.
    engine = importlib.import_module("aliceserver.debuggers.ptrace.engine")
    other = engine.PtraceDebugger()
    other_log = EventLog(other)
    try:
        other.attach(longrun.pid)
        other_log.wait_for(Stopped)
        with pytest.raises(TargetError):
            debugger.attach(longrun.pid)
        assert debugger.process is None
        # Both engines still work: ours launches and runs a program, the other detaches.
        info = launch(debugger, builder.build("exitcode"), ["3"])
        assert continue_to_exit(debugger, events).code == 3 and info.pid != longrun.pid
        other.detach()
        wait_untraced(longrun.pid)
    finally:
        other.close()
    assert longrun.poll() is None
