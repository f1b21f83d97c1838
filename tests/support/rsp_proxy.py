"""A fault-injecting TCP proxy between the remote backend and a real stub: it forwards
bytes both ways and lets a test change what the stub says (corrupt a checksum, go silent,
answer garbage) to see the client's errors and retries."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

Mangle = Callable[[bytes], bytes]  # the stub's bytes -> what the client gets


@dataclass
class Proxy:
    port: int
    from_client: bytearray = field(default_factory=bytearray)
    from_stub: bytearray = field(default_factory=bytearray)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"


def _pump(source: socket.socket, sink: socket.socket, seen: bytearray, mangle: Mangle) -> None:
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            seen += data
            changed = mangle(data)
            if changed:
                sink.sendall(changed)
    except OSError:
        pass
    finally:
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


@contextmanager
def rsp_proxy(upstream: str, mangle: Mangle = lambda data: data) -> Iterator[Proxy]:
    """Listen on a loopback port; the first client is joined to `upstream` (HOST:PORT)."""
    listener = socket.create_server(("127.0.0.1", 0))
    proxy = Proxy(listener.getsockname()[1])
    sockets: list[socket.socket] = [listener]
    threads: list[threading.Thread] = []

    def accept() -> None:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        host, _, port = upstream.rpartition(":")
        stub = socket.create_connection((host, int(port)))
        sockets.extend((client, stub))
        for source, sink, seen, change in ((client, stub, proxy.from_client, _same),
                                           (stub, client, proxy.from_stub, mangle)):  # fmt: skip
            pump = threading.Thread(target=_pump, args=(source, sink, seen, change), daemon=True)
            pump.start()
            threads.append(pump)

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    try:
        yield proxy
    finally:
        for each in sockets:
            try:
                each.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            each.close()
        acceptor.join(timeout=5)
        for pump in threads:
            pump.join(timeout=5)


def _same(data: bytes) -> bytes:
    return data
