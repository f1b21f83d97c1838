"""DAP framing: `Content-Length: N\\r\\n\\r\\n` then N bytes (a byte count, not characters)."""

from __future__ import annotations

import logging

from aliceserver.transports.base import ByteReader, ByteWriter, FramingError
from aliceserver.transports.stream import StreamTransport

__all__ = ["FramedTransport", "FramingError", "HTTPStdioTransport"]

logger = logging.getLogger(__name__)

MARKER = b"Content-Length:"
MAX_BODY = 64 * 1024 * 1024
MAX_HEADER = 64 * 1024
_SEPARATOR = b"\r\n\r\n"


class FramedTransport(StreamTransport):
    """Content-Length framed messages over a byte stream (stdio or a socket).

    Lenient where real clients differ: other headers are ignored, spaces after the colon are
    optional, blank lines between frames are skipped. After a malformed header block it
    raises `FramingError` once and resumes at the next `Content-Length:`.
    """

    def __init__(self, reader: ByteReader, writer: ByteWriter) -> None:
        super().__init__(reader, writer)
        self._resync_from: int | None = None  # set after a bad header: where to look next

    def _frame(self, data: bytes) -> bytes:
        return b"Content-Length: %d\r\n\r\n" % len(data) + data

    def _next_message(self) -> bytes | None:
        if self._resync_from is not None and not self._resynchronise():
            return None
        buffer = self._buffer
        while True:
            blank = 0
            while blank < len(buffer) and buffer[blank] in b"\r\n":
                blank += 1
            del buffer[:blank]
            end = buffer.find(_SEPARATOR)
            if end > MAX_HEADER or (end < 0 and len(buffer) > MAX_HEADER):
                raise self._bad(bytes(buffer[: MAX_HEADER + 1]), "header block too long")
            if end >= 0:
                break
            if not self._fill():
                if buffer:
                    logger.warning("stream ended inside a header (%d bytes dropped)", len(buffer))
                    buffer.clear()
                return None
        header = bytes(buffer[:end])
        length = self._content_length(header)
        del buffer[: end + len(_SEPARATOR)]
        while len(buffer) < length:
            if not self._fill():
                logger.warning("stream ended inside a %d-byte message", length)
                buffer.clear()
                return None
        body = bytes(buffer[:length])
        del buffer[:length]
        return body

    def _content_length(self, header: bytes) -> int:
        length: int | None = None
        for line in header.split(b"\r\n"):
            name, colon, value = line.partition(b":")
            if not colon or name != b"Content-Length":
                continue  # another header (or noise): ignored
            text = value.strip(b" \t")
            if not text.isdigit() or len(text) > 12:
                raise self._bad(header, f"bad Content-Length value {text[:40]!r}")
            if int(text) > MAX_BODY:
                raise self._bad(header, f"Content-Length {int(text)} exceeds {MAX_BODY}")
            if length is not None and length != int(text):
                raise self._bad(header, "conflicting Content-Length headers")
            length = int(text)
        if length is None:
            raise self._bad(header, "no Content-Length header")
        return length

    def _bad(self, header: bytes, reason: str) -> FramingError:
        # Resume after the last Content-Length line of this block, so that a bad frame's
        # body is skipped up to the next header; a marker elsewhere may start a good frame.
        last = 0
        position = 0
        for line in header.split(b"\r\n"):
            if line.startswith(MARKER):
                last = position
            position += len(line) + 2
        self._resync_from = last + 1
        logger.warning("malformed frame header: %s", reason)
        return FramingError(f"malformed message header: {reason}")

    def _resynchronise(self) -> bool:
        """Drop input up to the next `Content-Length:`; False at end of stream."""
        assert self._resync_from is not None
        buffer = self._buffer
        start = self._resync_from
        while True:
            found = buffer.find(MARKER, start)
            if found >= 0:
                del buffer[:found]
                self._resync_from = None
                return True
            # Keep a tail that may be the start of a marker split across reads.
            drop = max(start, len(buffer) - (len(MARKER) - 1))
            del buffer[:drop]
            start = 0
            self._resync_from = 0
            if not self._fill():
                buffer.clear()
                return False


# The name used by earlier code and by other DAP servers for the same thing.
HTTPStdioTransport = FramedTransport
