"""Carry the program's stdout/stderr from pipes to Output events.

One thread waits on both pipes, and stops reading them while the front end is far behind
(see _MAX_PENDING). The tracer calls `flush()` before it reports a stop or
an exit, so that output the program wrote before stopping is delivered before the stop.
"""

from __future__ import annotations

import codecs
import logging
import os
import selectors
import threading
import time

from aliceserver.debuggers.events import Output
from aliceserver.debuggers.eventsource import EventSource

log = logging.getLogger(__name__)

_CHUNK = 65536
# Events waiting for the front end beyond which the pump stops reading: the pipe fills and
# the program blocks in write, as on a terminal nobody reads; memory stays bounded (about
# this many chunks) however fast the program writes and however slow the client reads.
_MAX_PENDING = 256
_BACKOFF = 0.005  # seconds between looks at the queue while it is full
# Reads by a flush: more than a full pipe holds (1 MiB at most by default), fewer than
# would let a process still writing (a forked child) hold the tracer for long.
_FLUSH_CHUNKS = 32


class OutputPump:
    def __init__(self, events: EventSource, pipes: dict[str, int]) -> None:
        self._events = events
        self._lock = threading.Lock()
        self._selector = selectors.DefaultSelector()
        self._decoders = {name: codecs.getincrementaldecoder("utf-8")("replace") for name in pipes}
        self._open: dict[int, str] = {}
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_read, False)
        self._selector.register(self._wake_read, selectors.EVENT_READ, "")
        for category, fd in pipes.items():
            os.set_blocking(fd, False)
            self._open[fd] = category
            self._selector.register(fd, selectors.EVENT_READ, category)
        self._closing = False
        self._thread = threading.Thread(target=self._run, name="aliceserver-output", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                if self._closing or not self._open:
                    return
            while self._events.backlog() > _MAX_PENDING and not self._closing:
                time.sleep(_BACKOFF)  # only while the front end is behind
            for key, _ in self._selector.select():
                if key.fd == self._wake_read:
                    try:
                        os.read(self._wake_read, 64)
                    except BlockingIOError:
                        pass
                    continue
                with self._lock:
                    # One chunk, then the queue is looked at again: a program writing as
                    # fast as we read would otherwise keep this loop reading for ever.
                    self._read_available(key.fd, chunks=1)

    def _read_available(self, fd: int, chunks: int) -> None:
        """Read what the pipe holds now, in `chunks` reads at most (lock held); close it at
        end-of-file."""
        category = self._open.get(fd)
        if category is None:
            return
        for _ in range(chunks):
            try:
                data = os.read(fd, _CHUNK)
            except BlockingIOError:
                return
            except OSError as error:
                log.debug("reading program %s: %s", category, error)
                data = b""
            if not data:
                text = self._decoders[category].decode(b"", final=True)
                if text:
                    self._events.put(Output(category, text))
                self._selector.unregister(fd)
                del self._open[fd]
                os.close(fd)
                return
            text = self._decoders[category].decode(data)
            if text:
                self._events.put(Output(category, text))

    def flush(self) -> None:
        """Deliver everything the program has written so far."""
        with self._lock:
            for fd in list(self._open):
                self._read_available(fd, _FLUSH_CHUNKS)

    def close(self) -> None:
        self.flush()
        with self._lock:
            self._closing = True
            for fd in list(self._open):
                self._selector.unregister(fd)
                os.close(fd)
            self._open.clear()
        os.write(self._wake_write, b"x")
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=5)
        self._selector.close()
        os.close(self._wake_read)
        os.close(self._wake_write)
