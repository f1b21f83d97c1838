"""Stop replies parsed and decoded into the engine's events; wire signals and thread ids."""

from __future__ import annotations

import signal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aliceserver.debuggers.events import Exited, StopReason
from aliceserver.debuggers.remote import signals, stops, threadids
from aliceserver.debuggers.remote.errors import RemoteError
from aliceserver.debuggers.remote.threadids import ThreadRef


def test_a_t_reply_with_registers_thread_core_and_swbreak() -> None:
    reply = stops.parse(
        b"T0506:0000000000000000;10:704bfef7ff7f0000;thread:p1b4a.1b4b;core:3;swbreak:;"
    )
    assert isinstance(reply, stops.SignalStop)
    assert (reply.signal, reply.thread, reply.core, reply.reason) == (
        5,
        ThreadRef(0x1B4A, 0x1B4B),
        3,
        "swbreak",
    )
    assert reply.registers[0x10] == bytes.fromhex("704bfef7ff7f0000")
    event = stops.stopped_event(reply, 0x1B4B, pc=0x7FFFF7FE4B70)
    assert (event.reason, event.thread_id, event.address) == (
        StopReason.BREAKPOINT,
        0x1B4B,
        0x7FFFF7FE4B70,
    )


def test_watch_fork_exec_and_syscall_stops() -> None:
    watch = stops.parse(b"T05watch:55555555804c;thread:10;")
    assert isinstance(watch, stops.SignalStop) and (watch.reason, watch.address) == (
        "watch",
        0x55555555804C,
    )
    assert stops.stopped_event(watch, 16, pc=1).reason is StopReason.WATCHPOINT
    fork = stops.parse(b"T05fork:p2a.2a;thread:p29.29;")
    event = stops.stopped_event(fork, 0x29, pc=None)  # type: ignore[arg-type]
    assert (event.reason, event.new_pid) == (StopReason.FORK, 0x2A)
    path = "/bin/true".encode().hex().encode()
    execd = stops.parse(b"T05exec:" + path + b";thread:p29.29;")
    assert isinstance(execd, stops.SignalStop) and execd.exec_path == "/bin/true"
    call = stops.parse(b"T05syscall_entry:3c;thread:1;")
    assert stops.stopped_event(call, 1, pc=None).syscall == 0x3C  # type: ignore[arg-type]


def test_signals_steps_and_interrupts() -> None:
    trap = stops.SignalStop(signals.GDB_SIGNAL_TRAP)
    assert stops.stopped_event(trap, 1, pc=0, stepping=True).reason is StopReason.STEP
    assert stops.stopped_event(trap, 1, pc=0, initial=True).reason is StopReason.ENTRY
    interrupted = stops.SignalStop(signals.GDB_SIGNAL_INT)
    assert stops.stopped_event(interrupted, 1, pc=0, interrupted=True).reason is StopReason.PAUSE
    segv = stops.stopped_event(stops.SignalStop(11), 1, pc=0)
    assert (segv.reason, segv.signal, segv.signal_name) == (
        StopReason.CRASH,
        signal.SIGSEGV,
        "SIGSEGV",
    )
    usr1 = stops.stopped_event(stops.SignalStop(30), 1, pc=0)  # SIGUSR1 on the wire
    assert (usr1.reason, usr1.signal, usr1.description) == (
        StopReason.SIGNAL,
        signal.SIGUSR1,
        "User defined signal 1",
    )


def test_exits() -> None:
    assert stops.exited_event(stops.parse(b"W0c"), 7) == Exited(7, 12)  # type: ignore[arg-type]
    killed = stops.parse(b"X09;process:1f")
    assert stops.exited_event(killed, 7) == Exited(0x1F, None, signal=9, signal_name="SIGKILL")  # type: ignore[arg-type]
    assert isinstance(stops.parse(b"w00;p1.2"), stops.ThreadExit)
    with pytest.raises(RemoteError):
        stops.parse(b"E01")
    with pytest.raises(RemoteError):
        stops.parse(b"Tzz")


@given(st.integers(1, 64))
def test_host_signals_round_trip_through_the_wire(signo: int) -> None:
    if signo == signal.SIGPOLL:
        return  # SIGIO's other name: both go out as gdb's SIGIO
    wire = signals.from_host(signo)
    if wire != 143:
        assert signals.to_host(wire) == signo


def test_thread_ids() -> None:
    assert threadids.parse("p1b4a.1b4b") == ThreadRef(0x1B4A, 0x1B4B)
    assert threadids.parse(b"-1") == ThreadRef(None, threadids.ALL)
    assert threadids.parse("p10.-1") == ThreadRef(16, -1)
    assert ThreadRef(16, 17).encode(True) == b"p10.11" and ThreadRef(16, 17).encode(False) == b"11"
    with pytest.raises(RemoteError):
        threadids.parse("pzz.1")
