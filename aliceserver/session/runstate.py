"""A debugged program's run state: not started, running, stopped (at its last `Stopped`)
or exited (with its `Exited`), and a stop count that callers wait past.

The front end's pump, reading its subscription to the engine's event source, hands each
event to `apply`; any other thread may `wait` for the stop or exit after a stop count it
took before resuming (`begin_run`), so a stop that comes before the wait starts is not
missed, and several waiters (a `continue`, a `pause`) wake together.
"""

from __future__ import annotations

import enum
import threading
import time
from collections.abc import Callable

from aliceserver.debuggers.events import Event, Exited, Stopped


class RunPhase(enum.Enum):
    NOT_STARTED = "not-started"  # launched, held before its first instruction
    STOPPED = "stopped"
    RUNNING = "running"
    EXITED = "exited"


class WaitResult(enum.Enum):
    STOPPED = "stopped"
    EXITED = "exited"
    RUNNING = "running"  # the timeout passed first


class RunState:
    """One program's run state; every method is safe from any thread."""

    def __init__(self, phase: RunPhase = RunPhase.NOT_STARTED) -> None:
        self._changed = threading.Condition()
        self.phase = phase
        self.last_stop: Stopped | None = None
        self.exited: Exited | None = None
        self.generation = 0  # counts the stops and the exit

    @property
    def lock(self) -> threading.Condition:
        """Held while the state changes: a front end's own bookkeeping of a stop, done
        under it (in `apply`'s `also`), is seen by a waiter together with the stop."""
        return self._changed

    def apply(self, event: Event, also: Callable[[], None] | None = None) -> bool:
        """Take a `Stopped` or an `Exited` (False for any other event); `also` runs under
        the lock before the waiters wake."""
        if isinstance(event, Stopped):
            self.stopped_at(event, also)
            return True
        if isinstance(event, Exited):
            with self._changed:
                self.exited = event
                self._counted(RunPhase.EXITED, also)
            return True
        return False

    def stopped_at(self, stop: Stopped, also: Callable[[], None] | None = None) -> None:
        """Stopped at `stop`: an engine's event, or a stop no event says (a core file's)."""
        with self._changed:
            self.last_stop = stop
            self._counted(RunPhase.STOPPED, also)

    def _counted(self, phase: RunPhase, also: Callable[[], None] | None) -> None:
        """A stop or the exit, the lock held: one more for the stop count, then the waiters."""
        self.phase = phase
        self.generation += 1
        if also is not None:
            also()
        self._changed.notify_all()

    def begin_run(self) -> int:
        """Mark the program running (before resuming it); the stop count to wait past."""
        with self._changed:
            self.phase = RunPhase.RUNNING
            return self.generation

    def run_failed(self, previous: RunPhase, generation: int) -> None:
        """A resume was refused: back to `previous` unless an event moved on meanwhile."""
        with self._changed:
            if self.generation == generation and self.phase is RunPhase.RUNNING:
                self.phase = previous

    def forget(self) -> None:
        """The process is gone (exited, killed, detached): an exit taken stays told,
        anything else is not started again; a waiter on a running program wakes."""
        with self._changed:
            if self.phase is not RunPhase.EXITED:
                if self.phase is RunPhase.RUNNING:
                    self.generation += 1
                self.phase = RunPhase.NOT_STARTED
            self.last_stop = None
            self._changed.notify_all()

    def wait(self, generation: int, timeout: float) -> WaitResult:
        """Wait until the program stops or exits after stop count `generation` (at most
        `timeout` seconds); at once when it is not running."""
        deadline = time.monotonic() + max(0.0, timeout)
        with self._changed:
            while self.generation == generation and self.phase is RunPhase.RUNNING:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return WaitResult.RUNNING
                self._changed.wait(remaining)
            if self.phase is RunPhase.EXITED:
                return WaitResult.EXITED
            if self.phase is RunPhase.RUNNING:  # a stop counted, then resumed again
                return WaitResult.RUNNING
            return WaitResult.STOPPED
