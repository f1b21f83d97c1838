"""What the daemon keeps of every session's events while no command runs: program output,
stops, exits, threads. Bounded in count and size; the oldest go first and are counted, so
a reader learns how much it missed."""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass

from aliceserver.debuggers.events import (
    Event,
    Exited,
    Output,
    Stopped,
    ThreadExited,
    ThreadStarted,
)

MAX_EVENTS = 10_000
MAX_BYTES = 10 << 20
_OVERHEAD = 64  # bytes counted per entry besides its text


@dataclass(frozen=True, slots=True)
class Entry:
    seq: int  # 1, 2, ... over the daemon's life
    time: float
    session: str
    kind: str  # stdout, stderr, console, stopped, exited, thread
    text: str

    @property
    def size(self) -> int:
        return len(self.text.encode("utf-8", "replace")) + _OVERHEAD

    def as_dict(self) -> dict[str, object]:
        return {"seq": self.seq, "time": self.time, "session": self.session, "kind": self.kind,
                "text": self.text}  # fmt: skip


def describe(event: Event) -> tuple[str, str] | None:
    """(kind, text) for an event worth keeping; None for the rest (modules, progress...)."""
    if isinstance(event, Output):  # the debugger's warnings are console text
        return "console" if event.category == "warning" else event.category, event.text
    if isinstance(event, Stopped):
        text = f"stopped ({event.reason.value}) in thread {event.thread_id}"
        if event.description:
            text += f": {event.description}"
        return "stopped", text
    if isinstance(event, Exited):
        if event.code is not None:
            return "exited", f"exited with code {event.code}"
        return "exited", f"killed by {event.signal_name or f'signal {event.signal}'}"
    if isinstance(event, ThreadStarted):
        return "thread", f"thread {event.thread_id} started"
    if isinstance(event, ThreadExited):
        return "thread", f"thread {event.thread_id} exited"
    return None


class EventBuffer:
    """Thread-safe: session pumps append, command threads read and wait."""

    def __init__(self, max_events: int = MAX_EVENTS, max_bytes: int = MAX_BYTES) -> None:
        self.max_events = max_events
        self.max_bytes = max_bytes
        self._entries: deque[Entry] = deque()
        self._bytes = 0
        self._seq = 0
        self.dropped = 0  # entries dropped over the daemon's life
        self._changed = threading.Condition()

    def observe(self, session: str, event: Event) -> None:
        described = describe(event)
        if described is not None:
            self.append(session, *described)

    def append(self, session: str, kind: str, text: str) -> None:
        with self._changed:
            self._seq += 1
            entry = Entry(self._seq, time.time(), session, kind, text)
            self._entries.append(entry)
            self._bytes += entry.size
            while self._entries and (
                len(self._entries) > self.max_events or self._bytes > self.max_bytes
            ):
                self._bytes -= self._entries.popleft().size
                self.dropped += 1
            self._changed.notify_all()

    @property
    def last_seq(self) -> int:
        with self._changed:
            return self._seq

    def stats(self) -> dict[str, int]:
        with self._changed:
            return {"buffered": len(self._entries), "bytes": self._bytes, "dropped": self.dropped,
                    "last_seq": self._seq}  # fmt: skip

    def read(self, after: int, wait: float = 0.0) -> tuple[list[Entry], int]:
        """Entries with seq > `after` (waiting up to `wait` s for one), and how many of those
        were dropped before they could be read."""
        deadline = time.monotonic() + max(0.0, wait)
        with self._changed:
            while self._seq <= after:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._changed.wait(left)
            entries = [e for e in self._entries if e.seq > after]
            first = entries[0].seq if entries else self._seq + 1
            return entries, max(0, first - after - 1)

    def clear(self) -> int:
        """Forget every entry; how many there were."""
        with self._changed:
            count = len(self._entries)
            self._entries.clear()
            self._bytes = 0
            return count
