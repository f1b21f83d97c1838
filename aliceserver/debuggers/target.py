"""The process interface: what the source level (frames, variables, expressions, printers,
registers, memory, threads, libraries) needs of a debugged process, whatever backend holds
it. Of the size of Delve's pkg/proc ProcessInternal: a read side every backend has, and a
live side (traps, resume, step, stop) only a running process has.

    ProcessTarget       pid, live, threads, registers (general, x87/SSE/AVX), memory,
                        auxv and the executable: ptrace's PtraceProcess, core's CoreProcess
    LiveProcess         + traps, resume/step/interrupt/stop_all, detach: PtraceProcess,
                        and remote's RemoteProcess (a process behind gdbserver or any stub)

A read-only backend refuses writes with NotLive (gdb's words for a core) and offers no
live side; the engine tells which it holds by `live`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from aliceserver.debuggers.events import Stopped
from aliceserver.debuggers.model import ProcessInfo, VectorRegisters
from aliceserver.errors import TargetError

NOT_RUNNING = "The program is not being run."
NO_PROCESS = "You can't do that without a process to debug."
# The signal_name of the Exited a remote session publishes when the stub goes away.
CONNECTION_CLOSED = "Remote connection closed"
# gdb's words for a stub's link that broke: closed, or an error of its socket or pipe
LINK_LOST = (CONNECTION_CLOSED, "Remote communication error.")


class NotLive(TargetError):
    """What only a running process can do, asked of one that is not (a core file): gdb's
    "The program is not being run." for execution, "Cannot access memory" for writes."""


class ProcessTarget(Protocol):
    """The read side: a stopped (or dead) process's threads, registers and memory."""

    @property
    def pid(self) -> int: ...

    @property
    def live(self) -> bool:
        """A running process we may resume and write to (not a core file)."""
        ...

    def thread_ids(self) -> list[int]:
        """The threads, in the order the process made them (gdb's thread numbers)."""
        ...

    def check_stopped(self, tid: int) -> None:
        """Raise TargetError when `tid` is no thread of ours or is running."""
        ...

    def general_registers(self, tid: int) -> Mapping[str, int]:
        """rip, rsp, eflags, fs_base, orig_rax...: the engine's names (binding.REGISTER_NAMES)."""
        ...

    def set_general_register(self, tid: int, name: str, value: int) -> None: ...

    def float_registers(self, tid: int) -> dict[int, bytes]:
        """xmm0-15, st0-7 and the x87/SSE control words by DWARF number (regsets.py)."""
        ...

    def extended_registers(self, tid: int) -> dict[int, bytes]:
        """ymm, and AVX-512's k/zmm where present, by DWARF number; empty without AVX."""
        ...

    def vector_registers(self, tid: int) -> VectorRegisters: ...

    def set_vector_register(self, tid: int, name: str, data: bytes) -> None: ...

    def read_memory(self, address: int, size: int) -> bytes:
        """As the process holds it (a live one's traps included); OSError or TargetError
        for an address it does not map."""
        ...

    def write_memory(self, address: int, data: bytes) -> None: ...

    def auxv(self) -> Mapping[int, int]: ...

    def executable(self) -> str:
        """The main program's path."""
        ...

    def thread_name(self, tid: int) -> str: ...

    def last_stop(self) -> Stopped | None:
        """Why the process last stopped (a core: the signal that ended it)."""
        ...


def write_general_register(target: ProcessTarget, tid: int, name: str, value: int, pc: str) -> bool:
    """Write a general register of a stopped thread; whether that moved its pc (`pc`: the
    architecture's name for it), which makes gdb drop what it knew of the stop there (its
    inlined calls hidden)."""
    before = target.general_registers(tid).get(pc)
    target.set_general_register(tid, name, value)
    return target.general_registers(tid).get(pc) != before


@runtime_checkable
class LiveProcess(ProcessTarget, Protocol):
    """A running process: what the engine's execution control drives."""

    def resume(self, only: int | None = None) -> None: ...

    def step(self, tid: int) -> None: ...

    def interrupt(self) -> None: ...

    def stop_all(self) -> None: ...

    def detach(self) -> None: ...


@runtime_checkable
class RecordedSignals(Protocol):
    """An optional capability of a ProcessTarget that recorded each thread's last siginfo_t
    (a core's NT_SIGINFO notes; a live process's is read by ptrace instead)."""

    def siginfo(self, tid: int) -> bytes:
        """The thread's siginfo_t bytes; OSError when none was recorded."""
        ...


@runtime_checkable
class CoreTargets(Protocol):
    """An optional capability of an IDebugger (as Delve's optional interfaces): it can
    open a core file in place of a live process."""

    def open_core(self, core: str, program: str | None = None) -> CoreOpened:
        """Debug `core` (of `program`, else of the executable the core names) read-only.
        Refuses with TargetError in gdb's words what is no core; the front end prints the
        result's lines as gdb does on opening a core."""
        ...

    def close_core(self) -> None:
        """Forget the open core, if any (gdb's `core-file` without a file)."""
        ...


@dataclass(frozen=True, slots=True)
class CoreOpened:
    """What opening a core tells the front end, to print what gdb prints then."""

    process: ProcessInfo
    stop: Stopped  # the signal that ended the program, on the thread that took it
    thread_ids: tuple[int, ...]  # in gdb's order: the thread that took the signal first
    generated_by: str | None  # the command line the core records ("Core was generated by")
    warnings: tuple[str, ...] = ()  # gdb's, without their "warning: " prefix
    libraries: tuple[str, ...] = ()  # the shared libraries announced (ModuleLoaded), in order


@runtime_checkable
class RemoteTargets(Protocol):
    """An optional capability of an IDebugger: it can debug a process behind a stub of
    gdb's remote serial protocol (gdbserver, qemu -g...), as gdb's `target remote` and
    `target extended-remote`. Front-end neutral: MI/console, DAP, the agent's CLI and MCP
    all connect through it.

    While connected, the IDebugger's execution control (resume, step, interrupt, detach,
    kill), breakpoints, watchpoints, threads and the source level (frames, expressions...)
    work over the stub; in extended mode `launch` runs the program through the stub
    (`vRun`) and `attach` attaches through it (`vAttach`). Events (ProcessStarted,
    ThreadStarted, ModuleLoaded, Stopped, Exited) come from the engine's event source as
    for a local process, except the stop found on connecting or attaching through the stub,
    which `remote_connection()` tells (gdb prints it as the frame line after `target
    remote` and `attach`)."""

    def connect_remote(self, target: str, *, extended: bool = False, program: str | None = None,
                       timeouts: RemoteTimeouts | None = None, exec_file_mismatch: str = "ask",
                       ) -> RemoteConnected:  # fmt: skip
        """Connect to `HOST:PORT` (`tcp:HOST:PORT`) or `| COMMAND` (a stub on a pipe).
        `program`: the local copy of the program the stub debugs, for its symbols (else
        the path the stub names); `timeouts`: gdb's (None: its defaults, but a refused
        connection is not tried again); `exec_file_mismatch`: gdb's setting (ask, warn, off)
        for a `program` whose build id is not the stub's file's. Refused with TargetError in gdb's words (`HOST:PORT:
        Connection refused.`, a process debugged already)."""
        ...

    def disconnect_remote(self) -> None:
        """Close the connection; the stub keeps the program (gdb's `disconnect`)."""
        ...

    def remote_connection(self) -> RemoteConnected | None:
        """The connection held now, as it was made (None: none)."""
        ...

    def monitor(self, command: str) -> str:
        """What the stub answers a `monitor COMMAND` (qRcmd), as text."""
        ...


@dataclass(frozen=True, slots=True)
class RemoteTimeouts:
    """gdb's `remotetimeout`, `tcp connect-timeout` and `tcp auto-retry`, in seconds (None:
    unlimited). gdb waits `remotetimeout` for a reply three times before it gives up."""

    reply: float | None = 2.0
    connect: float | None = 15.0
    auto_retry: bool = True  # a refused TCP connection is tried again until `connect` runs out


@dataclass(frozen=True, slots=True)
class RemoteConnected:
    """What connecting to a stub tells the front end, to print what gdb prints then."""

    target: str  # as given: "127.0.0.1:1234", "| gdbserver - prog"
    extended: bool
    process: ProcessInfo | None  # None: an extended-remote stub that debugs nothing yet
    stop: Stopped | None  # where the program stands (not published as an event)
    thread_ids: tuple[int, ...] = ()
    libraries: tuple[str, ...] = ()  # the shared libraries announced (ModuleLoaded), in order
    warnings: tuple[str, ...] = ()  # gdb's, without their "warning: " prefix
