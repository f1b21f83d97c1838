"""What a debugger may answer about its target beyond IDebugger: the auxiliary vector
(gdb's `info auxv`), a signal queued for a thread (`queue-signal`), a terminal's ^C that
reached the stopped program. A front end asks with isinstance, as for RemoteTargets."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class TargetQueries(Protocol):
    def auxiliary_vector(self) -> list[tuple[int, int]]:
        """The program's auxiliary vector in its order, (type, value) up to AT_NULL (not
        included): /proc/PID/auxv, a stub's qXfer:auxv:read, or a core's NT_AUXV note.
        TargetError with no program running."""
        ...

    def queue_signal(self, thread_id: int, signal: int) -> None:
        """gdb's queue-signal: `signal` (this system's number, 0 for none) is delivered to
        the stopped thread when it next resumes, in place of the one it stopped with."""
        ...


@runtime_checkable
class TerminalInterrupts(Protocol):
    def drop_terminal_interrupt(self) -> bool:
        """The front end got a terminal's ^C while the program was stopped (or held before
        `run`): the SIGINT the terminal queued in it too (where its process group is ours:
        our stdin is no terminal) is not delivered, and its stop not reported, when it
        resumes (gdb's program has its own group, as ours on a terminal). True when one
        was pending."""
        ...
