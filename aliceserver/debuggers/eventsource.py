"""A debugger's event source: every front end subscribes; only the engine publishes.

The engine calls `EventSource.put` from whichever of its threads saw the event (the tracer,
the output pump, a caller's thread for `Continued`), and each live subscription gets the
event at once, from that thread: no relay thread, so no handoff delays a stop. Deliveries
to all subscriptions happen under one lock, so every subscriber sees the engine's events
in the same order. An event published before `subscribe` returns is not delivered: front
ends subscribe before they launch or attach.

A subscription either has a queue of its own (read with `get`, or by iterating), or
delivers into an inbox its front end owns and also fills with its own items (MI's session
reads its UIs' lines and the engine's events from one queue, in arrival order).
`Subscription.close` ends deliveries and wakes a reader waiting on its own queue; the
front end closes it (closing the debugger does not: its last events are still to read).

A front end that writes where the program writes (a console on the program's terminal)
sets `confirms_output`: it says `Written.done` once it wrote an Output published by
`put_written`, which the engine waits for before resuming the program, as gdb writes
its line before it resumes.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import Final, Protocol

from aliceserver.debuggers.events import Event, Output, Written


class Inbox(Protocol):
    """A front end's own queue that a subscription delivers into (a `queue.Queue` fits)."""

    def put(self, item: Event) -> None: ...

    def qsize(self) -> int: ...


class SubscriptionClosed(Exception):
    """`get` on a subscription that was closed, once the events before the close are read."""


class _Closed:
    """Put after the last event of a closed subscription's own queue: wakes its reader."""


_CLOSED: Final = _Closed()


class Subscription:
    """One front end's view of a debugger's events, in the order the engine published them."""

    def __init__(self, source: EventSource, inbox: Inbox | None) -> None:
        self._source = source
        self._own: queue.SimpleQueue[Event | _Closed] | None = None
        self.deliver: Callable[[Event], None]  # called by the source, under its lock
        self._backlog: Callable[[], int]
        if inbox is None:
            self._own = queue.SimpleQueue()
            self.deliver = self._own.put
            self._backlog = self._own.qsize
        else:
            self.deliver = inbox.put
            self._backlog = inbox.qsize
        self._ended = False  # the reader has seen the end marker
        self.confirms_output = False  # it says Written.done for an Output's `written`

    def get(self, timeout: float | None = None) -> Event:
        """The next event; `queue.Empty` after `timeout` seconds; `SubscriptionClosed` once
        closed and every event before the close was read."""
        own = self._require_own()
        if self._ended:
            raise SubscriptionClosed
        item = own.get(timeout=timeout)
        if isinstance(item, _Closed):
            self._ended = True
            raise SubscriptionClosed
        return item

    def get_nowait(self) -> Event:
        own = self._require_own()
        if self._ended:
            raise SubscriptionClosed
        item = own.get_nowait()
        if isinstance(item, _Closed):
            self._ended = True
            raise SubscriptionClosed
        return item

    def empty(self) -> bool:
        """No event waits (the end marker of a closed subscription does not count)."""
        own = self._require_own()
        return self._ended or own.empty()

    def __iter__(self) -> Iterator[Event]:
        """Every event, blocking for the next, until the subscription is closed."""
        while True:
            try:
                yield self.get()
            except SubscriptionClosed:
                return

    def backlog(self) -> int:
        """Items waiting to be read (the inbox's, for one owned by the front end)."""
        return self._backlog()

    def close(self) -> None:
        """No more events; a reader blocked in `get` wakes (after the events already queued).
        Idempotent; any thread."""
        if self._source.remove(self) and self._own is not None:
            self._own.put(_CLOSED)

    def _require_own(self) -> queue.SimpleQueue[Event | _Closed]:
        if self._own is None:
            raise TypeError("this subscription delivers into its front end's inbox: read that")
        return self._own


class EventSource:
    """The engine's side: `put` publishes to every live subscription."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscriptions: tuple[Subscription, ...] = ()

    def subscribe(self, into: Inbox | None = None) -> Subscription:
        """A new subscription: with its own queue, or delivering into `into`."""
        subscription = Subscription(self, into)
        with self._lock:
            self._subscriptions = (*self._subscriptions, subscription)
        return subscription

    def put(self, event: Event) -> None:
        """Publish `event` to every live subscription, from the calling thread."""
        with self._lock:  # one order for every subscriber, and none delivered after a close
            for subscription in self._subscriptions:
                subscription.deliver(event)

    def put_written(self, category: str, text: str) -> Written:
        """Publish an Output that the front ends writing where the program writes confirm:
        wait on what is returned before the program runs on."""
        written = Written()
        with self._lock:
            written.expect(sum(1 for each in self._subscriptions if each.confirms_output))
            event = Output(category, text, written=written)
            for subscription in self._subscriptions:
                subscription.deliver(event)
        return written

    def backlog(self) -> int:
        """The most events any one subscriber has yet to read (the output pump waits while
        a front end is far behind)."""
        subscriptions = self._subscriptions
        return max((each.backlog() for each in subscriptions), default=0)

    def remove(self, subscription: Subscription) -> bool:
        """Stop delivering to `subscription`; False if it was already removed."""
        with self._lock:
            if subscription not in self._subscriptions:
                return False
            self._subscriptions = tuple(s for s in self._subscriptions if s is not subscription)
            return True
