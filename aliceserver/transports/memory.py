"""Two connected in-process transports, for tests (no sockets, no threads of their own)."""

from __future__ import annotations

import queue
import threading

from aliceserver.transports.base import Transport, TransportClosed


class MemoryTransport:
    """One end of an in-process pair; what one end writes, the other reads, in order."""

    def __init__(self) -> None:
        self._inbox: queue.Queue[bytes | None] = queue.Queue()  # None marks the end
        self._peer: MemoryTransport | None = None
        self._lock = threading.Lock()
        self._closed = False
        self._eof = False

    def read_message(self) -> bytes | None:
        if self._eof or self._closed:
            return None
        message = self._inbox.get()
        if message is None:
            self._eof = True
        return message

    def write_message(self, data: bytes) -> None:
        peer = self._peer
        with self._lock:
            if self._closed:
                raise TransportClosed("the transport is closed")
        if peer is None or peer._closed:
            raise TransportClosed("the other end is closed")
        peer._inbox.put(bytes(data))

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._inbox.put(None)  # wakes our own blocked reader
        if self._peer is not None:
            self._peer._inbox.put(None)  # the other end reads what was sent, then the end


def memory_pair() -> tuple[Transport, Transport]:
    """Two connected transports: (client end, server end)."""
    first, second = MemoryTransport(), MemoryTransport()
    first._peer, second._peer = second, first
    return first, second
