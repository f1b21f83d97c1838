"""Draining a subscription to a debugger's events with timeouts, keeping every event for
later checks. Make the EventLog before the launch or attach whose events it should see."""

from __future__ import annotations

import queue
import time
from typing import Any, Callable, Protocol, TypeVar

from aliceserver.debuggers.events import Event, Output
from aliceserver.debuggers.eventsource import Subscription

E = TypeVar("E")


class HasEvents(Protocol):
    def subscribe(self) -> Subscription: ...


class EventLog:
    """Every event seen so far; `wait_for` hands out each matching event once, in order."""

    def __init__(self, dbg: HasEvents) -> None:
        self.dbg = dbg
        self.subscription = dbg.subscribe()  # events published from now on
        self.events: list[Event] = []
        self._claimed: set[int] = set()

    def drain(self, timeout: float = 0.0) -> None:
        """Move queued events into the log, waiting up to `timeout` for the first one."""
        try:
            event = (
                self.subscription.get(timeout=timeout)
                if timeout > 0
                else self.subscription.get_nowait()
            )
        except queue.Empty:
            return
        self.events.append(event)
        while True:
            try:
                self.events.append(self.subscription.get_nowait())
            except queue.Empty:
                return

    def _find(self, kind: type[E], predicate: Callable[[E], bool] | None) -> E | None:
        for index, event in enumerate(self.events):
            if index in self._claimed or not isinstance(event, kind):
                continue
            if predicate is None or predicate(event):
                self._claimed.add(index)
                return event
        return None

    def wait_for(
        self,
        kind: type[E],
        timeout: float = 10.0,
        predicate: Callable[[E], bool] | None = None,
    ) -> E:
        """The next unclaimed event of type `kind` (matching `predicate`); fail after `timeout`."""
        deadline = time.monotonic() + timeout
        while True:
            self.drain()
            found = self._find(kind, predicate)
            if found is not None:
                return found
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"no {kind.__name__} event within {timeout:.1f}s"
                    + (" matching the predicate" if predicate else "")
                    + f"; saw:\n{self.describe()}"
                )
            self.drain(timeout=min(left, 0.2))

    def wait_output(self, text: str, category: str = "stdout", timeout: float = 10.0) -> str:
        """Wait until the concatenated `category` output contains `text`; return that output."""
        deadline = time.monotonic() + timeout
        while text not in self.output(category):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"{category} never contained {text!r} within {timeout:.1f}s; saw:\n{self.describe()}"
                )
            self.drain(timeout=min(left, 0.2))
        return self.output(category)

    def settle(self, seconds: float = 0.3) -> None:
        """Collect whatever arrives during `seconds` (to check that nothing else happens)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self.drain(timeout=min(left, 0.1))

    def mark(self) -> int:
        """A position in the log; see `since`."""
        self.drain()
        return len(self.events)

    def since(self, mark: int, kind: type[E]) -> list[E]:
        """Events of type `kind` that arrived after `mark` (claimed or not)."""
        return [event for event in self.events[mark:] if isinstance(event, kind)]

    def of_type(self, kind: type[E]) -> list[E]:
        return [event for event in self.events if isinstance(event, kind)]

    def output(self, category: str = "stdout") -> str:
        """The program's text on `category` so far, chunks concatenated."""
        self.drain()
        return "".join(
            e.text for e in self.events if isinstance(e, Output) and e.category == category
        )

    def describe(self, limit: int = 60) -> str:
        lines: list[str] = []
        for event in self.events[-limit:]:
            text: Any = event
            if isinstance(event, Output):
                text = f"Output({event.category}, {event.text!r})"
            lines.append(f"  {text}")
        return "\n".join(lines) if lines else "  (no events)"


def wait_for(
    log: EventLog,
    kind: type[E],
    timeout: float = 10.0,
    predicate: Callable[[E], bool] | None = None,
) -> E:
    """Function form of `EventLog.wait_for`."""
    return log.wait_for(kind, timeout=timeout, predicate=predicate)
