"""Normalized events: what a backend tells the adapters, passed as values on a queue."""

from __future__ import annotations

import enum
import threading
from dataclasses import dataclass, field
from typing import Union

from aliceserver.debuggers.model import (
    BreakpointInfo,
    FaultInfo,
    LocationBreakpointInfo,
    Module,
    VariableInfo,
)


class StopReason(enum.Enum):
    BREAKPOINT = "breakpoint"
    STEP = "step"  # an instruction step (or, later, a line step) finished
    WATCHPOINT = "watchpoint"
    WATCHPOINT_SCOPE = "watchpoint-scope"  # a watch's frame was left: the watch is deleted
    SIGNAL = "signal"  # the program received a signal the policy stops on
    CRASH = "crash"  # a synchronous fault: SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT
    PAUSE = "pause"  # the client asked for an interrupt
    ENTRY = "entry"  # stopped at the program's entry point (stop_on_entry)
    EXEC = "exec"
    FORK = "fork"
    FUNCTION_FINISHED = "function-finished"
    EXCEPTION = "exception"  # a catchpoint: C++ throw/catch, Rust panic
    VFORK = "vfork"
    SYSCALL_ENTRY = "syscall-entry"  # a caught system call starts (`syscall` says which)
    SYSCALL_RETURN = "syscall-return"
    SIGNAL_CAUGHT = "signal-caught"  # a signal a catchpoint asked for (gdb's `catch signal`)
    LIBRARY = "solib-event"  # shared libraries came or went (gdb's `catch load` / `unload`)


@dataclass(frozen=True, slots=True)
class Stopped:
    reason: StopReason
    thread_id: int
    all_threads: bool = True
    breakpoint_ids: tuple[int, ...] = ()
    signal: int | None = None
    signal_name: str | None = None
    description: str = ""
    address: int | None = None  # the stopped thread's pc
    fault: FaultInfo | None = None
    watch_old: bytes | None = None  # watchpoints: the value before the hit
    watch_new: bytes | None = None
    return_value: VariableInfo | None = None  # FUNCTION_FINISHED: what the function returned
    # Watchpoints deleted at this stop because their frame was left (gdb's watchpoint-scope):
    # the whole story of a WATCHPOINT_SCOPE stop, or told beside a finish or a breakpoint.
    watches_left: tuple[int, ...] = ()
    syscall: int | None = None  # SYSCALL_ENTRY/RETURN: the system call's number
    new_pid: int | None = None  # FORK/VFORK: the child
    libraries_loaded: tuple[str, ...] = ()  # LIBRARY: the paths of those that came
    libraries_unloaded: tuple[str, ...] = ()
    exception_type: str | None = None  # EXCEPTION: the C++ type thrown, when the engine knows it


@dataclass(frozen=True, slots=True)
class Continued:
    thread_id: int | None  # None: every thread
    all_threads: bool = True


@dataclass(frozen=True, slots=True)
class Exited:
    """The whole process ended: exit code, or the signal that killed it."""

    pid: int
    code: int | None
    signal: int | None = None
    signal_name: str | None = None
    # A stub's link lost (signal_name "Remote connection closed") before a resume reached
    # it: a command resuming then fails ("Command aborted.", as gdb's proceed)
    before_resume: bool = False


@dataclass(frozen=True, slots=True)
class ProcessStarted:
    pid: int
    program: str
    attached: bool
    # The thread the process starts with (gdb's thread 1) where it is not the pid: a
    # stub's (qemu-user's pid is 1); the others come as ThreadStarted.
    main_thread: int | None = None


@dataclass(frozen=True, slots=True)
class Output:
    # "stdout", "stderr" (the program), "console" or "warning" (the debugger's, with
    # gdb's "warning: " before it)
    category: str
    text: str
    # Told while reading a program's symbols: heard even from the symbol probe, as gdb
    # tells it when it reads the file.
    of_symbols: bool = False
    # Set by `EventSource.put_written`: the engine waits for it before it resumes the
    # program (gdb writes a `nostop print` signal's line first).
    written: Written | None = field(default=None, compare=False)


class Written:
    """A countdown of the front ends that write where the program writes (a console sharing
    its terminal): each says `done` once it wrote the event; the engine `wait`s, bounded."""

    __slots__ = ("_left", "_lock", "_all")

    def __init__(self) -> None:
        self._left = 0
        self._lock = threading.Lock()
        self._all = threading.Event()

    def expect(self, count: int) -> None:
        self._left = count
        if count <= 0:
            self._all.set()

    def done(self) -> None:
        with self._lock:
            self._left -= 1
            if self._left <= 0:
                self._all.set()

    def abandon(self) -> None:
        """Stop the wait (a front end waits for the engine: it cannot write meanwhile)."""
        self._all.set()

    def wait(self, timeout: float) -> bool:
        return self._all.wait(timeout)


@dataclass(frozen=True, slots=True)
class ThreadStarted:
    thread_id: int
    pointer: int | None = None  # its thread pointer (pthread_self, gdb's "Thread 0x..."), if known


@dataclass(frozen=True, slots=True)
class ThreadExited:
    thread_id: int
    code: int | None = None
    pointer: int | None = None  # a leader exited alone: its thread pointer, last known


@dataclass(frozen=True, slots=True)
class ModuleLoaded:
    module: Module


@dataclass(frozen=True, slots=True)
class ModuleUnloaded:
    module: Module


@dataclass(frozen=True, slots=True)
class BreakpointChanged:
    breakpoint: BreakpointInfo
    removed: bool = False


@dataclass(frozen=True, slots=True)
class LocationBreakpointChanged:
    """A location breakpoint gained locations (a library with its code loaded)."""

    breakpoint: LocationBreakpointInfo


@dataclass(frozen=True, slots=True)
class Progress:
    ident: str
    title: str
    message: str = ""
    percent: float | None = None
    done: bool = False


Event = Union[
    Stopped,
    Continued,
    Exited,
    ProcessStarted,
    Output,
    ThreadStarted,
    ThreadExited,
    ModuleLoaded,
    ModuleUnloaded,
    BreakpointChanged,
    LocationBreakpointChanged,
    Progress,
]


# The last line of gdb's error for a call into the program that stopped before it returned
# and was left there (infcall): the stop was queued just before the error was raised.
CALL_LEFT_STOPPED = "When the function is done executing, GDB will silently stop."
# The description of the stop when such a call returns at last (the state before it is back).
CALL_RETURNED = "the function called from GDB returned"
# The description of the Stopped(PAUSE) that ends an attach (gdb tells the frame alone);
# any other PAUSE but an infcall's "timeout" is the client's interrupt.
ATTACHED = "attached"
