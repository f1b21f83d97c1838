"""Optional capabilities of a backend: gdb's `catch syscall` and `catch signal`, and a
front end's judge of every catch stop (its catchpoints' conditions and ignore counts);
a front end's judge of every watchpoint trap (its conditions, threads, ignore counts)."""

from __future__ import annotations

import logging
from typing import Callable, Protocol, runtime_checkable

from aliceserver.debuggers.events import Stopped

log = logging.getLogger(__name__)


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


@runtime_checkable
class WatchGate(Protocol):
    def set_watch_gate(self, gate: Callable[[Stopped], bool] | None, owner: str = "") -> None:
        """`gate` is called on the engine's thread with each watchpoint trap that changed
        its value (or read it) and a False lets the program go on unseen, as a false
        breakpoint condition does: a `next` or `finish` under way goes on with its plan
        (gdb's bpstat_check_watchpoint and condition, judged before the step is ended).
        One gate per `owner` (a front end and the console it hosts each judge their own
        watchpoints, True for the others'); the trap stops when every gate says so; None
        takes the owner's gate away."""
        ...


def gate_wants(gate: Callable[[Stopped], bool] | None, stop: Stopped) -> bool:
    """Whether a front end's gate lets `stop` be reported (no gate: every stop is); a gate
    that fails stops the program, as a broken condition does."""
    if gate is None:
        return True
    try:
        return gate(stop)
    except Exception:
        log.exception("the front end's gate failed on %r", stop)
        return True
