"""What a debugger may answer about its target beyond IDebugger: the auxiliary vector
(gdb's `info auxv`). A front end asks with isinstance, as for RemoteTargets."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class TargetQueries(Protocol):
    def auxiliary_vector(self) -> list[tuple[int, int]]:
        """The program's auxiliary vector in its order, (type, value) up to AT_NULL (not
        included): /proc/PID/auxv, a stub's qXfer:auxv:read, or a core's NT_AUXV note.
        TargetError with no program running."""
        ...
