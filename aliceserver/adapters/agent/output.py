"""A bounded ring of one session's output, addressed by absolute character cursors.

Cursors count every character the program ever printed (in all streams, in order), so a
reader can come back with the cursor it was given and learn how much fell out of the ring
meanwhile (`dropped`) instead of silently missing it.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass

DEFAULT_CAPACITY = 1 << 20  # characters kept per session


@dataclass(frozen=True, slots=True)
class Chunk:
    start: int  # cursor of its first character
    category: str  # "stdout", "stderr" or "console" (logpoints, debugger messages)
    text: str

    @property
    def end(self) -> int:
        return self.start + len(self.text)


@dataclass(frozen=True, slots=True)
class OutputSlice:
    text: str
    cursor: int  # where this slice starts (after any dropped characters)
    next_cursor: int  # pass it back to read on from here
    dropped: int  # characters between the requested cursor and `cursor` no longer kept
    more: int  # characters after `next_cursor` already buffered (the slice was cut)
    end: int  # total characters printed so far


class OutputBuffer:
    """Thread-safe: the session's event pump appends while tool calls read."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.capacity = capacity
        self._chunks: deque[Chunk] = deque()
        self._start = 0  # cursor of the oldest kept character
        self._end = 0
        self._lock = threading.Lock()

    @property
    def end(self) -> int:
        return self._end

    def append(self, category: str, text: str) -> None:
        if not text:
            return
        with self._lock:
            if len(text) > self.capacity:  # keep only what fits of a huge write
                skipped = len(text) - self.capacity
                self._end += skipped
                text = text[skipped:]
                self._chunks.clear()  # it fills the ring alone: everything older goes
                self._start = self._end
            self._chunks.append(Chunk(self._end, category, text))
            self._end += len(text)
            while self._end - self._start > self.capacity:
                first = self._chunks[0]
                excess = self._end - self._start - self.capacity
                if len(first.text) <= excess:
                    self._chunks.popleft()
                    self._start = first.end
                else:
                    self._chunks[0] = Chunk(first.start + excess, first.category, first.text[excess:])
                    self._start = first.start + excess
            if not self._chunks:
                self._start = self._end

    def read(
        self, cursor: int, max_chars: int, categories: frozenset[str] | None = None
    ) -> OutputSlice:
        """Up to `max_chars` characters from `cursor` on (of `categories` when given)."""
        with self._lock:
            cursor = max(0, min(cursor, self._end))
            dropped = max(0, self._start - cursor)
            begin = max(cursor, self._start)
            parts: list[str] = []
            taken = 0
            position = begin
            for chunk in self._chunks:
                if chunk.end <= position:
                    continue
                piece = chunk.text[position - chunk.start :]
                room = max_chars - taken
                wanted = categories is None or chunk.category in categories
                if wanted and len(piece) > room:
                    parts.append(piece[:room])
                    position += room
                    break
                if wanted:
                    parts.append(piece)
                    taken += len(piece)
                position = chunk.end
            text = "".join(parts)
            more = sum(
                len(c.text[max(0, position - c.start) :])
                for c in self._chunks
                if c.end > position and (categories is None or c.category in categories)
            )
            return OutputSlice(text, begin, position, dropped, more, self._end)

    def tail(
        self, max_chars: int, lines: int | None = None, categories: frozenset[str] | None = None
    ) -> OutputSlice:
        """The last `lines` lines (at most `max_chars` characters) kept; `more` counts the
        kept characters before them."""
        with self._lock:
            kept = [c for c in self._chunks if categories is None or c.category in categories]
            dropped, end = self._start, self._end
        text = "".join(c.text for c in kept)
        begin = max(0, len(text) - max(0, max_chars))
        if lines is not None and lines <= 0:
            begin = len(text)
        elif lines is not None:
            body = text[:-1] if text.endswith("\n") else text
            at = len(body)
            for _ in range(lines):
                at = body.rfind("\n", 0, at)
                if at < 0:
                    break
            begin = max(begin, at + 1)
        cursor = end
        offset = 0
        for chunk in kept:  # map the offset in the joined text back to a cursor
            if offset + len(chunk.text) > begin:
                cursor = chunk.start + begin - offset
                break
            offset += len(chunk.text)
        return OutputSlice(text[begin:], cursor, end, dropped, begin, end)
