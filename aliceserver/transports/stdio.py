"""Line transport (GDB/MI): one message per line, terminated by \\n, \\r\\n or a lone \\r."""

from __future__ import annotations

import logging

from aliceserver.transports.base import ByteReader, ByteWriter, FramingError
from aliceserver.transports.stream import StreamTransport

logger = logging.getLogger(__name__)

MAX_LINE = 1024 * 1024
_CR = 0x0D
_LF = 0x0A


class LineTransport(StreamTransport):
    """Reads lines without their terminators; writes bytes exactly as given.

    Vim termdebug ends its commands with a lone `\\r`. A line is returned as soon as its
    `\\r` arrives (the client waits for the answer), and a `\\n` that follows it later is
    taken as the rest of a `\\r\\n`, not as an empty line.
    """

    def __init__(self, reader: ByteReader, writer: ByteWriter, *, max_line: int = MAX_LINE) -> None:
        super().__init__(reader, writer)
        self._max_line = max_line
        self._skip_lf = False  # the last line ended with \r at the end of the buffer
        self._discarding = False  # inside an over-long line: drop up to its end
        self._scanned = 0  # bytes of _buffer known to hold no terminator

    def _next_message(self) -> bytes | None:
        buffer = self._buffer
        while True:
            if self._skip_lf and buffer:
                if buffer[0] == _LF:
                    del buffer[:1]
                self._skip_lf = False
            end = self._find_terminator()
            if end >= 0:
                line = bytes(buffer[:end])
                self._consume_terminator(end)
                if self._discarding:
                    self._discarding = False
                    continue
                if len(line) > self._max_line:
                    raise self._too_long()
                return line
            if len(buffer) > self._max_line or self._discarding:
                buffer.clear()
                self._scanned = 0
                if not self._discarding:
                    self._discarding = True
                    raise self._too_long()
            if not self._fill():
                if self._discarding or not buffer:
                    buffer.clear()
                    return None
                line = bytes(buffer)  # the last line, without a terminator
                buffer.clear()
                return line

    def fileno(self) -> int | None:
        """The input's descriptor, for a reader that selects on it (None: none)."""
        fileno = getattr(self._reader, "fileno", None)
        try:
            return fileno() if callable(fileno) else None
        except (OSError, ValueError):
            return None

    def ready(self, read: bool) -> bool:
        """Whether read_message answers now without waiting for input, after one read of
        what is there if `read` (select saw the descriptor readable; it cannot see the
        lines already buffered)."""
        with self._read_lock:
            if read and not self._fill():
                return True  # the end: the last line, or None
            buffer = self._buffer
            if self._skip_lf and buffer:
                if buffer[0] == _LF:
                    del buffer[:1]
                self._skip_lf = False
            found = self._find_terminator() >= 0
            if self._discarding and not found:  # the rest of an over-long line: dropped
                buffer.clear()
                self._scanned = 0
                return self._eof
            return found or self._eof or self._closed or len(buffer) > self._max_line

    def _find_terminator(self) -> int:
        buffer = self._buffer
        cr = buffer.find(b"\r", self._scanned)
        lf = buffer.find(b"\n", self._scanned, cr if cr >= 0 else len(buffer))
        end = lf if lf >= 0 else cr
        self._scanned = len(buffer) if end < 0 else 0
        return end

    def _consume_terminator(self, end: int) -> None:
        buffer = self._buffer
        size = 1
        if buffer[end] == _CR:
            if end + 1 < len(buffer):
                size = 2 if buffer[end + 1] == _LF else 1
            else:
                self._skip_lf = True
        del buffer[: end + size]

    def _too_long(self) -> FramingError:
        logger.warning("input line longer than %d bytes dropped", self._max_line)
        return FramingError(f"input line longer than {self._max_line} bytes")
