"""Writing a core of the stopped process (gdb's `gcore`), an object the engine composes: the tracer
thread reads each thread's registers (only it may), /proc gives the rest (core/procfs.py),
and the memory is written as the program sees it, without our int3 bytes."""

from __future__ import annotations

import dataclasses
import os
import signal as sig
from typing import Callable

from aliceserver.debuggers.core import ThreadImage, process_image, write_core
from aliceserver.debuggers.events import Stopped, StopReason
from aliceserver.debuggers.model import CoreWritten
from aliceserver.debuggers.ptrace import binding
from aliceserver.debuggers.ptrace.inferior import Inferior
from aliceserver.debuggers.ptrace.tracee import Run, Tracee
from aliceserver.debuggers.ptrace.traps import TrapTable
from aliceserver.debuggers.source.services import EngineServices
from aliceserver.debuggers.target import NO_PROCESS
from aliceserver.errors import TargetError

# gdb's refusal of a command that needs the program stopped while it runs
RUNNING = (
    "Cannot execute this command while the target is running.\n"
    'Use the "interrupt" command to stop the target\nand then try again.'
)
_FXSAVE_SIZE = 512
_XSTATE_MAX = 64 * 1024  # the whole XSAVE area, AVX-512 and AMX included (registers.py)
# Stops that a trap caused: gdb's thread stop_signal is SIGTRAP for them.
_TRAP_STOPS = frozenset({StopReason.BREAKPOINT, StopReason.STEP, StopReason.WATCHPOINT,
                         StopReason.WATCHPOINT_SCOPE, StopReason.FUNCTION_FINISHED,
                         StopReason.EXCEPTION, StopReason.ENTRY})  # fmt: skip


class CoreWriter:
    def __init__(
        self, engine: EngineServices, inferior: Callable[[], Inferior | None], traps: TrapTable, libc: binding.Libc
    ) -> None:
        self._engine = engine
        self._inferior = inferior  # the live process, None without one
        self._traps = traps
        self._libc = libc

    def write_core(self, path: str | None = None) -> CoreWritten:
        return self._engine.run_on_engine(lambda: self._write_core(path))

    def _write_core(self, path: str | None) -> CoreWritten:
        inferior = self._inferior()
        if inferior is None:  # gdb's noprocess(): a core file open is no process either
            raise TargetError(NO_PROCESS)
        live = [t for t in inferior.threads.values() if not t.gone]
        if inferior.run is Run.RUNNING or any(t.running for t in live):
            raise TargetError(RUNNING)
        target = os.path.expanduser(path) if path else f"core.{inferior.pid}"
        images = _thread_images(self._libc, inferior, sorted(live, key=lambda t: t.tid))
        traps = self._traps
        with process_image(inferior.pid, images) as image:
            read = image.read_memory

            def visible(address: int, size: int) -> bytes:
                return traps.mask(address, read(address, size))

            try:
                written = write_core(target, dataclasses.replace(image, read_memory=visible))
            except OSError:
                raise TargetError(f"Failed to open '{target}' for output.") from None
        return CoreWritten(written.path, written.size, tuple(written.warnings))


def stop_signal(stop: Stopped | None) -> int:
    """The signal gdb keeps as the thread's stop_signal for this stop: the one received,
    SIGTRAP for a trap's stops, none after an interrupt or an attach."""
    if stop is None:
        return 0
    if stop.signal:
        return stop.signal
    return int(sig.SIGTRAP) if stop.reason in _TRAP_STOPS else 0


def _thread_images(libc: binding.Libc, inferior: Inferior, threads: list[Tracee]) -> list[ThreadImage]:
    """Every thread as gdb's gcore orders them: the one that stopped with a signal first,
    each with that signal as its pr_cursig (gdb writes the same for all)."""
    stop = inferior.last_stop
    signal = stop_signal(stop)
    first = stop.thread_id if stop is not None and signal else None
    ordered = sorted(threads, key=lambda t: t.tid != first)  # stable: the rest keep their order
    return [
        ThreadImage(
            t.tid,
            bytes(inferior.regs(t)),  # the engine's copy: a pc rewound past an int3 is in it
            _regset(libc, t.tid, binding.NT_PRFPREG, _FXSAVE_SIZE),
            _regset(libc, t.tid, binding.NT_X86_XSTATE, _XSTATE_MAX),
            _siginfo(libc, t.tid),
            signal,
        )
        for t in ordered
    ]


def _regset(libc: binding.Libc, tid: int, note_type: int, size: int) -> bytes | None:
    try:
        return libc.get_regset(tid, note_type, size)
    except OSError:  # a machine without XSAVE: the core simply has no such note
        return None


def _siginfo(libc: binding.Libc, tid: int) -> bytes | None:
    try:
        return libc.siginfo_bytes(tid)
    except OSError:  # a thread in a group-stop has none
        return None
