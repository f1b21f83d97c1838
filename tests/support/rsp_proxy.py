"""A fault-injecting TCP proxy between the remote backend and a real stub: it forwards the
protocol's units (a packet `$...#cs` or notification `%...#cs`, an ack `+`/`-`, a `^C`)
both ways and lets a test change each one (corrupt a checksum, drop, duplicate or delay
it, answer garbage) or cut the link, to see the client's retries and errors."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial

Mangle = Callable[[bytes], bytes]  # one unit -> what passes on (b"": dropped)


def same(unit: bytes) -> bytes:
    return unit


def checksummed(body: bytes) -> bytes:
    """`body` framed as a packet with a right checksum."""
    return b"$%s#%02x" % (body, sum(body) & 0xFF)


class Units:
    """Splits a byte stream into the protocol's units, keeping a partial one for later."""

    def __init__(self) -> None:
        self._held = b""

    def feed(self, data: bytes) -> list[bytes]:
        data, self._held = self._held + data, b""
        units = []
        while data:
            if data[:1] in (b"$", b"%"):
                end = data.find(b"#")
                if end < 0 or len(data) < end + 3:
                    self._held = data
                    break
                units.append(data[: end + 3])
                data = data[end + 3 :]
            else:
                units.append(data[:1])
                data = data[1:]
        return units


@dataclass
class Proxy:
    port: int
    from_client: bytearray = field(default_factory=bytearray)
    from_stub: bytearray = field(default_factory=bytearray)
    links: list[socket.socket] = field(default_factory=list)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def cut(self) -> None:
        """Both links closed: to the client, the stub is gone."""
        shut(self.links)

    def sent(self, body: bytes) -> bool:
        """Whether the client sent a packet whose body starts with `body`."""
        return b"$" + body in self.from_client


def _pump(source: socket.socket, sink: socket.socket, seen: bytearray, mangle: Mangle) -> None:
    units = Units()
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            seen += data
            for unit in units.feed(data):
                changed = mangle(unit)
                if changed:
                    sink.sendall(changed)
    except OSError:
        pass
    finally:
        shut((source, sink))


Join = Callable[[socket.socket, socket.socket], Sequence[Callable[[], None]]]


def shut(ends: Iterable[socket.socket]) -> None:
    for end in ends:
        try:
            end.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


@contextmanager
def listening(upstream: str, join: Join, links: list[socket.socket],
              *, connections: int = 1) -> Iterator[int]:  # fmt: skip
    """A loopback port (yielded) whose first `connections` clients are each joined to
    `upstream` (HOST:PORT): `join(client, stub)` gives the loops to run on threads of their
    own; both ends go into `links`. When the block ends every socket is shut and closed and
    every thread gone (the proxies of rsp_proxy and rsp_solib_target alike)."""
    listener = socket.create_server(("127.0.0.1", 0))
    threads: list[threading.Thread] = []

    def accept() -> None:
        for _ in range(connections):
            try:
                client, _ = listener.accept()
            except OSError:
                return
            host, _, port = upstream.rpartition(":")
            try:
                stub = socket.create_connection((host, int(port)))
            except OSError:
                client.close()
                continue
            links.extend((client, stub))
            for loop in join(client, stub):
                thread = threading.Thread(target=loop, daemon=True)
                thread.start()
                threads.append(thread)

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    try:
        yield listener.getsockname()[1]
    finally:
        shut([listener])
        listener.close()
        shut(links)
        acceptor.join(timeout=5)
        for thread in threads:
            thread.join(timeout=5)
        for each in links:
            each.close()
        assert not acceptor.is_alive() and not any(thread.is_alive() for thread in threads)


@contextmanager
def rsp_proxy(upstream: str, to_client: Mangle = same, to_stub: Mangle = same,
              *, connections: int = 1) -> Iterator[Proxy]:  # fmt: skip
    """Listen on a loopback port; each of the first `connections` clients is joined to
    `upstream` (HOST:PORT). `to_client` changes what the stub says, `to_stub` what the
    client says. Every socket and thread is gone when the block ends."""
    proxy = Proxy(0)

    def join(client: socket.socket, stub: socket.socket) -> list[Callable[[], None]]:
        return [partial(_pump, client, stub, proxy.from_client, to_stub),
                partial(_pump, stub, client, proxy.from_stub, to_client)]  # fmt: skip

    with listening(upstream, join, proxy.links, connections=connections) as port:
        proxy.port = port
        yield proxy
