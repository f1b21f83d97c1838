"""TCP: a listener that starts one independent session per accepted connection."""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import logging
import selectors
import socket
import threading
import time
from collections.abc import Callable
from types import TracebackType

from aliceserver.transports.base import ByteReader, ByteWriter, Transport
from aliceserver.transports.framed import FramedTransport

logger = logging.getLogger(__name__)

# Builds the framing (FramedTransport for DAP, LineTransport for MI) over a socket's streams.
TransportFactory = Callable[[ByteReader, ByteWriter], Transport]


class SocketTransport:
    """A connected socket seen through a framing transport made by `factory`."""

    def __init__(self, sock: socket.socket, factory: TransportFactory = FramedTransport) -> None:
        self._socket = sock
        self._closed = False
        self._lock = threading.Lock()
        try:
            self.peer = _format_address(sock.getpeername())
        except OSError:
            self.peer = "?"
        self._inner = factory(sock.makefile("rb"), sock.makefile("wb"))

    def read_message(self) -> bytes | None:
        return self._inner.read_message()

    def write_message(self, data: bytes) -> None:
        self._inner.write_message(data)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        # Wakes a reader blocked in recv (close alone would not) and tells the peer.
        with contextlib.suppress(OSError):
            self._socket.shutdown(socket.SHUT_RDWR)
        self._inner.close()
        self._socket.close()


class TcpListener:
    """Accepts connections until `close()`, each served by `on_connection` in its own thread.

    The transport is closed when `on_connection` returns. `close()` stops accepting, closes
    every open connection (their sessions see the end of stream) and joins the threads.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        on_connection: Callable[[Transport], None],
        transport_factory: TransportFactory = FramedTransport,
        backlog: int = 16,
    ) -> None:
        self._on_connection = on_connection
        self._factory = transport_factory
        family, kind, proto, _, sockaddr = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        # A socket pair wakes the accept loop on close: no polling, no platform tricks.
        self._wake_read, self._wake_write = socket.socketpair()
        self._socket = socket.socket(family, kind, proto)
        try:
            self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self._socket.bind(sockaddr)
            self._socket.listen(backlog)
        except OSError:
            for sock in (self._socket, self._wake_read, self._wake_write):
                sock.close()
            raise
        self._lock = threading.Lock()
        self._closed = False
        self._sessions: dict[threading.Thread, SocketTransport] = {}
        self._accept_thread: threading.Thread | None = None
        self._serving = threading.Event()
        self._served = threading.Event()
        bound = self.address[0]
        if not ipaddress.ip_address(bound.split("%")[0]).is_loopback:
            logger.warning(
                "listening on %s, reachable from other machines: anyone who connects can "
                "run programs as this user",
                _format_address((bound, self.address[1])),
            )

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._socket.getsockname()[:2]
        return str(host), int(port)

    def start(self) -> TcpListener:
        """Accept connections in a background thread."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the listener is closed")
            if self._accept_thread is None:
                self._accept_thread = threading.Thread(
                    target=self.serve_forever,
                    name=f"aliceserver-listen-{self.address[1]}",
                    daemon=True,
                )
                self._accept_thread.start()
        return self

    def serve_forever(self) -> None:
        """Accept connections in the calling thread until `close()`."""
        self._serving.set()
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(self._socket, selectors.EVENT_READ)
                selector.register(self._wake_read, selectors.EVENT_READ)
                while not self._closed:
                    for key, _ in selector.select():
                        if key.fileobj is self._wake_read:
                            return
                        self._accept()
        finally:
            self._served.set()

    def _accept(self) -> None:
        try:
            conn, peer = self._socket.accept()
        except OSError as error:  # e.g. the client gave up already, or out of descriptors
            logger.warning("accept failed: %s", error)
            if error.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                time.sleep(0.1)  # the backlog stays readable: do not spin while starved
            return
        with contextlib.suppress(OSError):  # small requests and replies: no Nagle delay
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        transport = SocketTransport(conn, self._factory)
        thread = threading.Thread(
            target=self._serve_one,
            args=(transport,),
            name=f"aliceserver-session-{_format_address(peer)}",
            daemon=True,
        )
        with self._lock:
            if self._closed:
                transport.close()
                return
            self._sessions[thread] = transport
        logger.info("connection from %s", transport.peer)
        thread.start()

    def _serve_one(self, transport: SocketTransport) -> None:
        try:
            self._on_connection(transport)
        except Exception:
            logger.exception("session with %s failed", transport.peer)
        finally:
            transport.close()
            with self._lock:
                self._sessions.pop(threading.current_thread(), None)
            logger.info("connection from %s closed", transport.peer)

    def close(self, timeout: float = 5.0) -> None:
        """Stop listening, end every session and wait (up to `timeout` each) for its thread."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            sessions = list(self._sessions.items())
        current = threading.current_thread()
        with contextlib.suppress(OSError):
            self._wake_write.send(b"x")
        if self._serving.is_set() and self._accept_thread is not current:
            self._served.wait(timeout)
        self._socket.close()
        self._wake_read.close()
        self._wake_write.close()
        for _, transport in sessions:
            transport.close()
        for thread, _ in sessions:
            if thread is not current:
                thread.join(timeout)
                if thread.is_alive():
                    logger.warning("session thread %s did not finish", thread.name)

    def __enter__(self) -> TcpListener:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _format_address(address: object) -> str:
    if isinstance(address, tuple) and len(address) >= 2:
        host = str(address[0])
        return f"[{host}]:{address[1]}" if ":" in host else f"{host}:{address[1]}"
    return str(address)
