"""Stop replies: what the stub answers `?` and every resume with (`S`, `T`, `W`, `X`, `w`,
`N`), parsed, then decoded into the engine's events (debuggers/events.py) as the ptrace
backend reports them. `O` console output comes before the stop; the client takes it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from aliceserver.debuggers import gdb_signals
from aliceserver.debuggers.events import ATTACHED, Exited, Stopped, StopReason
from aliceserver.debuggers.remote import signals, threadids
from aliceserver.debuggers.remote.errors import RemoteError
from aliceserver.debuggers.remote.packets import from_hex
from aliceserver.debuggers.remote.threadids import ThreadRef

WATCH_KINDS = ("watch", "rwatch", "awatch")
_CRASHES = frozenset({"SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL", "SIGABRT"})


@dataclass(frozen=True, slots=True)
class SignalStop:
    """`S`/`T`: a thread stopped with wire signal `signal` (gdb's numbering)."""

    signal: int
    thread: ThreadRef | None = None
    core: int | None = None
    registers: dict[int, bytes] = field(default_factory=dict)  # by the stub's number
    reason: str | None = None  # swbreak, hwbreak, watch, rwatch, awatch, library, fork...
    address: int | None = None  # watch/rwatch/awatch: the data address that was hit
    child: ThreadRef | None = None  # fork/vfork: the new process's thread
    exec_path: str | None = None  # exec: the new program
    syscall: int | None = None  # syscall_entry/syscall_return: its number


@dataclass(frozen=True, slots=True)
class ProcessExit:
    """`W` (exit code) or `X` (killed by wire signal `status`)."""

    status: int
    signaled: bool
    pid: int | None = None


@dataclass(frozen=True, slots=True)
class ThreadExit:
    """`w`: a thread ended (with QThreadEvents)."""

    status: int
    thread: ThreadRef


@dataclass(frozen=True, slots=True)
class NoResumed:
    """`N`: no thread is left running to report anything."""


StopReply = Union[SignalStop, ProcessExit, ThreadExit, NoResumed]


def parse(body: bytes) -> StopReply:
    text = body.decode("latin-1")
    kind = text[:1]
    try:
        if kind == "S":
            return SignalStop(int(text[1:3], 16))
        if kind == "T":
            return _parse_t(text)
        if kind in "WX" and kind:
            status, _, rest = text[1:].partition(";")
            pid = int(rest.removeprefix("process:"), 16) if rest.startswith("process:") else None
            return ProcessExit(int(status, 16), kind == "X", pid)
        if kind == "w":
            status, _, tid = text[1:].partition(";")
            return ThreadExit(int(status, 16), threadids.parse(tid))
        if kind == "N":
            return NoResumed()
    except ValueError:
        pass
    if kind == "E":
        raise RemoteError(f"The stub could not resume: {text}.")
    raise RemoteError(f"A stop reply we cannot read: {text[:80]!r}.")


def _parse_t(text: str) -> SignalStop:
    signal = int(text[1:3], 16)
    thread: ThreadRef | None = None
    core = address = syscall = None
    reason = exec_path = None
    child: ThreadRef | None = None
    registers: dict[int, bytes] = {}
    for pair in text[3:].split(";"):
        key, sep, value = pair.partition(":")
        if not key:
            continue
        if key == "thread":
            thread = threadids.parse(value)
        elif key == "core":
            core = int(value, 16)
        elif key in WATCH_KINDS:
            reason, address = key, int(value, 16)
        elif key in (
            "swbreak",
            "hwbreak",
            "library",
            "vforkdone",
            "create",
            "replaylog",
            "no_resumed",
        ):
            reason = key
        elif key in ("fork", "vfork"):
            reason, child = key, threadids.parse(value)
        elif key == "exec":
            reason, exec_path = key, from_hex(value).decode(errors="replace")
        elif key in ("syscall_entry", "syscall_return"):
            reason, syscall = key, int(value, 16)
        elif sep and all(c in "0123456789abcdefABCDEF" for c in key):
            registers[int(key, 16)] = from_hex(value)
        # anything else is an extension we do not know: the manual says to ignore it
    return SignalStop(signal, thread, core, registers, reason, address, child, exec_path, syscall)


def stopped_event(
    stop: SignalStop,
    tid: int,
    *,
    pc: int | None,
    stepping: bool = False,
    interrupted: bool = False,
    initial: bool = False,
    attached: bool = False,
) -> Stopped:
    """The engine's Stopped for `stop` on thread `tid`. `stepping`: we asked the thread
    for one instruction; `interrupted`: we sent ^C (gdbserver reports it as SIGINT, or as
    SIGSTOP / signal 0 when it stopped the threads itself); `initial`: the answer to `?`
    or `vRun`, a program just started (ENTRY); `attached`: the answer to `vAttach` (PAUSE,
    as the ptrace backend reports an attach)."""
    host = signals.to_host(stop.signal)
    name = (
        gdb_signals.gdb_signal_name(host)
        if host is not None
        else signals.gdb_name(stop.signal) or "?"
    )
    described = gdb_signals.gdb_signal_description(name)
    reason = stop.reason
    if reason in WATCH_KINDS:
        return Stopped(
            StopReason.WATCHPOINT, tid, address=pc, description=f"{reason} {stop.address:#x}"
        )
    if reason in ("swbreak", "hwbreak"):
        return Stopped(StopReason.BREAKPOINT, tid, address=pc)
    if reason in ("fork", "vfork"):
        assert stop.child is not None
        kind = StopReason.FORK if reason == "fork" else StopReason.VFORK
        child = stop.child.pid if stop.child.pid is not None else stop.child.tid
        return Stopped(kind, tid, address=pc, new_pid=child)
    if reason == "exec":
        return Stopped(StopReason.EXEC, tid, address=pc, description=stop.exec_path or "")
    if reason == "library":
        return Stopped(StopReason.LIBRARY, tid, address=pc)
    if reason in ("syscall_entry", "syscall_return"):
        kind = StopReason.SYSCALL_ENTRY if reason == "syscall_entry" else StopReason.SYSCALL_RETURN
        return Stopped(kind, tid, address=pc, syscall=stop.syscall)
    quiet = (0, signals.GDB_SIGNAL_TRAP, signals.GDB_SIGNAL_INT, signals.GDB_SIGNAL_STOP)
    if attached and stop.signal in quiet:
        return Stopped(StopReason.PAUSE, tid, address=pc, description=ATTACHED)
    if initial and stop.signal in (0, signals.GDB_SIGNAL_TRAP):
        return Stopped(StopReason.ENTRY, tid, address=pc)
    if initial and stop.signal in (signals.GDB_SIGNAL_INT, signals.GDB_SIGNAL_STOP):
        return Stopped(StopReason.PAUSE, tid, address=pc)
    if stop.signal == signals.GDB_SIGNAL_TRAP or stop.signal == 0:
        if interrupted and not stepping:
            return Stopped(StopReason.PAUSE, tid, address=pc)
        # A stub without swbreak/hwbreak says only SIGTRAP: a step if we asked for one.
        return Stopped(StopReason.STEP if stepping else StopReason.BREAKPOINT, tid, address=pc)
    if interrupted and stop.signal in (signals.GDB_SIGNAL_INT, signals.GDB_SIGNAL_STOP):
        return Stopped(StopReason.PAUSE, tid, address=pc)
    kind = StopReason.CRASH if name in _CRASHES else StopReason.SIGNAL
    return Stopped(kind, tid, signal=host, signal_name=name, description=described, address=pc)


def exited_event(stop: ProcessExit, pid: int) -> Exited:
    pid = stop.pid if stop.pid is not None else pid
    if not stop.signaled:
        return Exited(pid, stop.status)
    host = signals.to_host(stop.status)
    name = gdb_signals.gdb_signal_name(host) if host is not None else signals.gdb_name(stop.status)
    return Exited(pid, None, signal=host, signal_name=name)
