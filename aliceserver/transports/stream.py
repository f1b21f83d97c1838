"""Shared plumbing for transports over a pair of byte streams (stdio, sockets, pipes)."""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable

from aliceserver.transports.base import WIRE_LOGGER, ByteReader, ByteWriter, TransportClosed

_CHUNK = 64 * 1024
_LOG_LIMIT = 2000  # bytes of a message shown in the wire log


class StreamTransport:
    """Buffered reads, locked writes and a close that never blocks on a pending read.

    Subclasses parse messages out of `_buffer` in `_next_message`, calling `_fill` for more
    bytes, and add their framing in `_frame`.
    """

    def __init__(self, reader: ByteReader, writer: ByteWriter) -> None:
        self._reader = reader
        self._writer = writer
        # read1 returns what one system call gave instead of waiting for a full chunk.
        read1 = getattr(reader, "read1", None)
        self._read_chunk: Callable[[int], bytes] = read1 if callable(read1) else reader.read
        self._buffer = bytearray()
        self._eof = False
        self._closed = False
        self._reader_closed = False
        self._read_lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._wire = logging.getLogger(WIRE_LOGGER)

    def is_terminal(self) -> bool:
        """Whether its input is a terminal."""
        fileno = getattr(self._reader, "fileno", None)
        try:
            return callable(fileno) and os.isatty(fileno())
        except (OSError, ValueError):  # closed, or a stream with no descriptor
            return False

    # --- for subclasses ----------------------------------------------------------------
    def _next_message(self) -> bytes | None:
        raise NotImplementedError

    def _frame(self, data: bytes) -> bytes:
        return data

    def _fill(self) -> bool:
        """Append the next chunk of input to `_buffer`; False at end of stream."""
        if self._eof or self._closed:
            return False
        try:
            chunk = self._read_chunk(_CHUNK)
        except (OSError, ValueError):  # closed or reset under us: the same as the end
            chunk = b""
        if not chunk:
            # a terminal's end of input (Ctrl-D) ends one read, not the terminal
            self._eof = not self.is_terminal()
            return False
        self._buffer += chunk
        return True

    # --- Transport -----------------------------------------------------------------------
    def read_message(self) -> bytes | None:
        try:
            with self._read_lock:
                message = None if self._closed else self._next_message()
        finally:
            if self._closed:
                self._close_reader()
        if message is not None and self._wire.isEnabledFor(logging.DEBUG):
            self._wire.debug("<- %s", _shorten(message))
        return message

    def write_message(self, data: bytes) -> None:
        framed = self._frame(data)
        with self._write_lock:
            if self._closed:
                raise TransportClosed("the transport is closed")
            try:
                while framed:
                    written = self._writer.write(framed)
                    # Raw (unbuffered) streams may write less than asked.
                    if not isinstance(written, int) or written >= len(framed):
                        break
                    framed = framed[written:]
                self._writer.flush()
            except (OSError, ValueError) as error:
                raise TransportClosed(f"cannot write: {error}") from error
        if self._wire.isEnabledFor(logging.DEBUG):
            self._wire.debug("-> %s", _shorten(data))

    def close(self) -> None:
        with self._state_lock:
            if self._closed:
                return
            self._closed = True
        with self._write_lock:
            for action in (self._writer.flush, self._writer.close):
                with contextlib.suppress(OSError, ValueError):
                    action()
        # A reader blocked in another thread holds the read lock (and a buffered stream's
        # own lock): it closes the reader itself when its read returns.
        self._close_reader()

    def _close_reader(self) -> None:
        if not self._read_lock.acquire(blocking=False):
            return
        try:
            if not self._reader_closed:
                self._reader_closed = True
                with contextlib.suppress(OSError, ValueError):
                    self._reader.close()
        finally:
            self._read_lock.release()


def _shorten(data: bytes) -> str:
    if len(data) <= _LOG_LIMIT:
        return repr(data)
    return f"{data[:_LOG_LIMIT]!r}... ({len(data)} bytes)"
