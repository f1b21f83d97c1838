"""An optional capability of a backend: gdb's `catch syscall` and `catch signal`, and a
front end's judge of every catch stop (its catchpoints' conditions and ignore counts)."""

from __future__ import annotations

from typing import Callable, Protocol, runtime_checkable

from aliceserver.debuggers.events import Stopped


@runtime_checkable
class CatchEvents(Protocol):
    def set_catch_events(
        self, *, syscalls: frozenset[int] | None, signals: frozenset[int],
        gate: Callable[[Stopped], bool] | None, libraries: bool = False,
    ) -> None:
        """Stop at these system calls' entries and returns (None: none, empty: every
        call), at these signals (the system's numbers) and, with `libraries`, when
        shared libraries load or unload (Stopped(LIBRARY)); `gate` is called on the
        engine's thread with each catch stop (fork, exec, exception, syscall, signal)
        and a False lets the program go on unseen."""
        ...
