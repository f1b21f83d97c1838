"""Starting to trace a process: a launched program seized and run to its exec, every
thread of a running one seized for attach, and gdb's words for a program gone before its
exec."""

from __future__ import annotations

import os
import signal as sig

from aliceserver.debuggers.gdb_signals import gdb_signal_description, gdb_signal_name
from aliceserver.debuggers.ptrace import binding
from aliceserver.debuggers.ptrace.waitstatus import WaitKind, decode
from aliceserver.errors import StartupExit, TargetError

OPTIONS = (
    binding.PTRACE_O_TRACECLONE
    | binding.PTRACE_O_TRACEEXEC
    | binding.PTRACE_O_TRACEFORK
    | binding.PTRACE_O_TRACEVFORK
    | binding.PTRACE_O_TRACEVFORKDONE
    | binding.PTRACE_O_TRACESYSGOOD  # syscall stops told apart (catch syscall); free otherwise
)
WAIT_ONE = binding.WALL | binding.WNOTHREAD


def seize_launched(libc: binding.Libc, pid: int, stderr: int | None, execs: int = 1) -> None:
    """Seize the stopped trampoline and let it run to the exec of the program (the
    `execs`th exec)."""
    _, status = libc.waitpid(pid, binding.WUNTRACED | binding.WNOTHREAD)
    first = decode(status)
    if first.kind is not WaitKind.SIGNAL_STOP:
        raise TargetError(f"the program could not be started ({first.kind.value} {first.value})")
    try:
        libc.ptrace(binding.PTRACE_SEIZE, pid, 0, OPTIONS | binding.PTRACE_O_EXITKILL)
        os.kill(pid, sig.SIGCONT)  # end the job-control stop; we hold it by ptrace now
        while True:
            _, status = libc.waitpid(pid, WAIT_ONE)
            step = decode(status)
            if step.kind is WaitKind.EVENT and step.event == binding.PTRACE_EVENT_EXEC:
                execs -= 1
                if not execs:
                    return
            if step.kind in (WaitKind.EXITED, WaitKind.KILLED):
                raise _startup_failure(pid, step.kind is WaitKind.KILLED, step.value, stderr)
            libc.ptrace(binding.PTRACE_CONT, pid, 0, 0)
    except OSError as error:
        kill_and_reap(libc, pid)
        raise TargetError(f"cannot trace the program: {error.strerror}", errno=error.errno) from None
    except TargetError:
        kill_and_reap(libc, pid)
        raise


def seize_threads(libc: binding.Libc, pid: int) -> list[int]:
    """PTRACE_SEIZE every thread of a running process (attach), new ones too until none is left."""
    seized: list[int] = []
    try:
        while True:
            fresh = [int(t) for t in os.listdir(f"/proc/{pid}/task") if int(t) not in seized]
            if not fresh:
                return seized
            for tid in fresh:
                try:
                    libc.ptrace(binding.PTRACE_SEIZE, tid, 0, OPTIONS)
                except OSError as error:
                    if error.errno == 3:  # ESRCH: that thread just exited
                        continue
                    raise
                seized.append(tid)
    except OSError as error:
        for tid in seized:
            _quiet_detach(libc, tid)
        # gdb's words: the error's own (not our call's description), as perror_with_name's
        raise TargetError(f"ptrace: {os.strerror(error.errno or 0)}.", errno=error.errno, pid=pid) from None


def kill_and_reap(libc: binding.Libc, pid: int) -> None:
    try:
        os.kill(pid, sig.SIGKILL)
        libc.waitpid(pid, WAIT_ONE)
    except OSError:
        pass


def _quiet_detach(libc: binding.Libc, tid: int) -> None:
    try:
        libc.ptrace(binding.PTRACE_DETACH, tid, 0, 0)
    except OSError:
        pass


def _startup_failure(pid: int, killed: bool, value: int, stderr: int | None) -> StartupExit:
    """gdb's startup_inferior error for a program gone before its exec, with what it wrote."""
    output = b""
    if stderr is not None:
        try:
            os.set_blocking(stderr, False)
            while chunk := os.read(stderr, 65536):
                output += chunk
        except OSError:  # nothing more (EAGAIN)
            pass
    if killed:
        name = gdb_signal_name(value)
        message = f"During startup program terminated with signal {name}, {gdb_signal_description(name)}."
    else:
        message = f"During startup program exited with code {value}." if value else "During startup program exited normally."
    return StartupExit(message, pid=pid, output=output.decode(errors="replace"))
