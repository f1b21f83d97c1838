"""Decode a waitpid status into a value (never an exception)."""

from __future__ import annotations

import enum
import os
import signal as signal_module
from dataclasses import dataclass

from aliceserver.debuggers.ptrace import binding

_GROUP_STOP_SIGNALS = frozenset(
    {signal_module.SIGSTOP, signal_module.SIGTSTP, signal_module.SIGTTIN, signal_module.SIGTTOU}
)


class WaitKind(enum.Enum):
    EXITED = "exited"  # normal exit; `value` is the exit code
    KILLED = "killed"  # killed by a signal; `value` is the signal
    SIGNAL_STOP = "signal-stop"  # signal-delivery-stop; `value` is the signal
    EVENT = "event"  # PTRACE_EVENT_* stop (fork, clone, exec...); `event` says which
    GROUP_STOP = "group-stop"  # PTRACE_EVENT_STOP for a job-control stop; `value` the signal
    INTERRUPT = "interrupt"  # PTRACE_EVENT_STOP caused by PTRACE_INTERRUPT or a new tracee
    SYSCALL = "syscall"
    CONTINUED = "continued"


@dataclass(frozen=True, slots=True)
class WaitStatus:
    kind: WaitKind
    value: int = 0
    event: int = 0


def decode(status: int) -> WaitStatus:
    if os.WIFEXITED(status):
        return WaitStatus(WaitKind.EXITED, os.WEXITSTATUS(status))
    if os.WIFSIGNALED(status):
        return WaitStatus(WaitKind.KILLED, os.WTERMSIG(status))
    if os.WIFCONTINUED(status):
        return WaitStatus(WaitKind.CONTINUED)
    if not os.WIFSTOPPED(status):
        raise ValueError(f"undecodable wait status {status:#x}")
    sig = os.WSTOPSIG(status)
    event = (status >> 16) & 0xFF
    if event == binding.PTRACE_EVENT_STOP:
        if sig in _GROUP_STOP_SIGNALS:
            return WaitStatus(WaitKind.GROUP_STOP, sig, event)
        return WaitStatus(WaitKind.INTERRUPT, sig, event)
    if event:
        return WaitStatus(WaitKind.EVENT, sig, event)
    if sig == signal_module.SIGTRAP | 0x80:
        return WaitStatus(WaitKind.SYSCALL, signal_module.SIGTRAP)
    return WaitStatus(WaitKind.SIGNAL_STOP, sig)
