"""System calls run inside the program, on one of its stopped threads (tracer thread only).

Every thread must be stopped. One thread lends itself: its registers are saved, set to the
call's number and arguments with the pc at a `syscall` instruction, the thread takes one
single step, and the result is read from rax; at the end its registers are put back
exactly (a system call touches no vector state). The `syscall` is one already in the
program's memory (the vdso has several) or, failing that, two bytes written at the
thread's pc for the duration and put back.

orig_rax is set to -1 for the call, as gdb does for its calls: the kernel must not take
the borrowed thread for one stopped inside an interrupted system call and restart it.
The thread's own interrupted call, if any, is restarted as usual once its registers are
back (the kernel looks at rax and orig_rax when the thread resumes). A thread stopped at
a system call's entry (catch syscall) is not borrowed: resumed, it would go on into its
own call (skipped, with orig_rax -1, and that call lost). A thread at an exec's event stop
(a launch's first stop) is still inside execve, whose return would overwrite rax: it is
first taken to the call's exit stop (PTRACE_SYSCALL; its pc and the program do not move).
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal as sig
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Final

from aliceserver.debuggers.ptrace import binding
from aliceserver.debuggers.ptrace.waitstatus import WaitKind, decode
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.ptrace.inferior import Inferior
    from aliceserver.debuggers.ptrace.tracee import Tracee

log = logging.getLogger(__name__)

SYSCALL: Final = b"\x0f\x05"
SYS_MMAP: Final = 9
SYS_MUNMAP: Final = 11
SYS_CLOSE: Final = 3
SYS_FTRUNCATE: Final = 77
SYS_OPENAT: Final = 257
SYS_MEMFD_CREATE: Final = 319

_ARGUMENT_REGISTERS = ("rdi", "rsi", "rdx", "r10", "r8", "r9")
_MAX_ERRNO = 4095
_ENOSYS = -38 & ((1 << 64) - 1)  # rax at a system call's entry stop
_MAX_ATTEMPTS = 16  # statuses other than the step's own before giving up
_EXECS = (59, 322)  # execve, execveat: their event stop is inside the call


def all_stopped(inferior: Inferior) -> bool:
    """Whether no thread of the program can run code now (new threads wait for us)."""
    return not any(t.running and not t.gone for t in inferior.threads.values())


def vdso_syscall(pid: int, read: binding.ProcessMemory) -> int | None:
    """The address of a `syscall` instruction's bytes in the program's vdso, if any."""
    try:
        with open(f"/proc/{pid}/maps", encoding="utf-8", errors="replace") as maps:
            lines = maps.read().splitlines()
    except OSError:
        return None
    for line in lines:
        if line.endswith("[vdso]"):
            start, end = (int(part, 16) for part in line.split(None, 1)[0].split("-"))
            try:
                offset = read.read(start, end - start).find(SYSCALL)
            except OSError:
                return None
            return start + offset if offset >= 0 else None
    return None


class SyscallInjector:
    """`with SyscallInjector(inferior) as inject: inject.call(SYS_..., args...)`."""

    def __init__(self, inferior: Inferior) -> None:
        if not all_stopped(inferior):
            raise TargetError("every thread must be stopped to run system calls in the program")
        self._inferior = inferior
        self._thread = self._pick_thread()
        self._saved = binding.UserRegs()
        self._site: int | None = None
        self._borrowed_bytes: bytes | None = None  # the bytes our `syscall` covers at the pc

    def _pick_thread(self) -> Tracee:
        threads = self._inferior.threads
        leader = threads.get(self._inferior.pid)
        candidates = [leader] if leader is not None else []
        candidates += [t for t in threads.values() if t is not leader]
        for t in candidates:
            if t is None or t.gone or t.new or t.running:
                continue
            regs = self._inferior.regs(t)
            if regs.rax == _ENOSYS and regs.orig_rax < 1 << 63:
                if regs.orig_rax not in _EXECS or not self._leave_exec(t):
                    continue  # at a system call's entry (catch syscall): resuming runs that call
            return t
        raise TargetError("no thread is stopped where it can run system calls for the debugger")

    def _leave_exec(self, t: Tracee) -> bool:
        """Take a thread at an exec's event stop (not a syscall stop) to the exec's exit
        stop, where rax holds execve's 0 and registers we set stay; False elsewhere, and
        where `catch syscall` would report that exit stop (it is the user's)."""
        libc, caught = self._inferior.libc, self._inferior.catch_syscalls
        if caught is not None and (not caught or int(self._inferior.regs(t).orig_rax) in caught):
            return False
        try:
            if libc.syscall_op(t.tid) != 0:  # 0: no syscall stop (an event stop)
                return False
        except OSError:
            return False
        for _ in range(_MAX_ATTEMPTS):
            libc.ptrace(binding.PTRACE_SYSCALL, t.tid, 0, 0)
            status = self._inferior.wait_thread(t)
            decoded = decode(status)
            if decoded.kind in (WaitKind.EXITED, WaitKind.KILLED):
                self._inferior._classify(t, decoded)
                raise TargetError(f"thread {t.tid} ended leaving its exec for the debugger")
            if decoded.kind is WaitKind.SYSCALL:
                fresh = binding.UserRegs()
                libc.get_regs(t.tid, fresh)
                if t.regs_dirty:  # the engine's changes stand, but for execve's result
                    t.regs.rax = fresh.rax
                else:
                    ctypes.memmove(
                        ctypes.addressof(t.regs), ctypes.addressof(fresh), ctypes.sizeof(fresh)
                    )
                    t.regs_valid = True
                return True
            if decoded.kind is WaitKind.INTERRUPT:
                t.interrupt_sent = False
            elif decoded.kind is WaitKind.SIGNAL_STOP:
                self._keep_signal(t, decoded.value)
        raise TargetError(f"thread {t.tid} never left its exec for the debugger")

    def __enter__(self) -> SyscallInjector:
        inferior, t = self._inferior, self._thread
        current = inferior.regs(t)  # the engine's view, with changes it has not written yet
        ctypes.memmove(
            ctypes.addressof(self._saved), ctypes.addressof(current), ctypes.sizeof(current)
        )
        self._site = vdso_syscall(inferior.pid, inferior.memory)
        if self._site is None:
            pc = int(self._saved.rip)
            self._borrowed_bytes = inferior.memory.read(pc, len(SYSCALL))
            inferior.memory.write(pc, SYSCALL)
            self._site = pc
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:  # fmt: skip
        inferior, t = self._inferior, self._thread
        if self._borrowed_bytes is not None and self._site is not None:
            inferior.memory.write(self._site, self._borrowed_bytes)
        if t.gone:
            return
        ctypes.memmove(
            ctypes.addressof(t.regs), ctypes.addressof(self._saved), ctypes.sizeof(self._saved)
        )
        inferior.libc.set_regs(t.tid, t.regs)
        t.regs_valid = True
        t.regs_dirty = False

    def call(self, number: int, *arguments: int) -> int:
        """The system call's result; OSError(errno) when it fails."""
        if self._site is None:
            raise RuntimeError("SyscallInjector.call outside its with block")
        inferior, t = self._inferior, self._thread
        regs = binding.UserRegs()
        ctypes.memmove(ctypes.addressof(regs), ctypes.addressof(self._saved), ctypes.sizeof(regs))
        regs.rax = number
        regs.orig_rax = (1 << 64) - 1
        regs.rip = self._site
        for name, value in zip(_ARGUMENT_REGISTERS, arguments, strict=False):
            setattr(regs, name, value & ((1 << 64) - 1))
        inferior.libc.set_regs(t.tid, regs)
        t.regs_valid = False
        self._step_over_syscall(t)
        inferior.libc.get_regs(t.tid, regs)
        result = int(regs.rax)
        if result >= (1 << 64) - _MAX_ERRNO:
            errno = (1 << 64) - result
            raise OSError(
                errno, f"system call {number} in process {inferior.pid}: {os.strerror(errno)}"
            )
        return result

    def _step_over_syscall(self, t: Tracee) -> None:
        """Single-step the thread until its pc has passed the `syscall`. Statuses other
        than the step's (a signal arriving, an interrupt left pending) are kept for later."""
        inferior, site = self._inferior, self._site
        assert site is not None
        regs = binding.UserRegs()
        for _ in range(_MAX_ATTEMPTS):
            step_alone(inferior, t, self._keep_signal, "during a system call the debugger ran")
            inferior.libc.get_regs(t.tid, regs)
            if int(regs.rip) == site + len(SYSCALL):
                return
            if int(regs.rip) != site:
                raise TargetError(
                    f"thread {t.tid} left the system call the debugger ran at {int(regs.rip):#x}"
                )
        raise TargetError(f"thread {t.tid} never finished the system call the debugger ran")

    def _keep_signal(self, t: Tracee, signal: int) -> None:
        inferior = self._inferior
        if signal == sig.SIGSTOP and inferior.wake_sent:
            inferior.wake_sent = False  # the engine's wake-up: the command it was for runs now
        elif t.pending_signal == 0:
            t.pending_signal = signal  # delivered when the engine resumes the thread
        else:
            _requeue(inferior.pid, t.tid, signal)


def step_alone(inferior: Inferior, t: Tracee, keep: Callable[[Tracee, int], None],
               doing: str) -> None:  # fmt: skip
    """One single step of thread `t` alone, the others staying stopped: its own stop is
    waited for, and an interrupt the engine left pending is spent on it. Any other signal
    the thread stops for goes to `keep`, which decides its fate (kept for a detach, or for
    the engine's next resume); TargetError when the thread ends (`doing`: during what)."""
    inferior.libc.ptrace(binding.PTRACE_SINGLESTEP, t.tid, 0, 0)
    status = inferior.wait_thread(t)  # not waitpid(t.tid): see Inferior._collect_stops
    decoded = decode(status)
    if decoded.kind in (WaitKind.EXITED, WaitKind.KILLED):
        inferior._classify(t, decoded)
        raise TargetError(f"thread {t.tid} ended {doing}")
    if decoded.kind is WaitKind.INTERRUPT:
        t.interrupt_sent = False  # the engine's interrupt, spent on this stop
    elif decoded.kind is WaitKind.SIGNAL_STOP and decoded.value != sig.SIGTRAP:
        keep(t, decoded.value)


_SYS_TGKILL = 234


def _requeue(pid: int, tid: int, signal: int) -> None:
    """Send the thread a signal it took during our call again: it stops for it once more
    when the engine resumes it (os has no tgkill)."""
    if binding.load_libc().syscall(_SYS_TGKILL, pid, tid, signal) != 0:
        log.warning(
            "signal %d for thread %d was lost during a system call the debugger ran", signal, tid
        )
