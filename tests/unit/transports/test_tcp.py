"""TcpListener / SocketTransport: one independent session per connection, nothing leaked."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from aliceserver.transports.base import Transport, TransportClosed
from aliceserver.transports.stdio import LineTransport
from aliceserver.transports.tcp import SocketTransport, TcpListener


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def wait_until(predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


@pytest.fixture(autouse=True)
def no_leaks() -> Iterator[None]:
    """Every test must end with the threads and file descriptors it started with."""
    threads, fds = set(threading.enumerate()), open_fds()
    yield
    assert wait_until(lambda: set(threading.enumerate()) <= threads), threading.enumerate()
    assert wait_until(lambda: open_fds() <= fds), f"{open_fds()} descriptors open, had {fds}"


def echo(transport: Transport) -> None:
    while (message := transport.read_message()) is not None:
        transport.write_message(b"echo:" + message)


def connect(listener: TcpListener) -> SocketTransport:
    return SocketTransport(socket.create_connection(listener.address, timeout=10))


def test_echo_and_bound_address() -> None:
    with TcpListener(on_connection=echo).start() as listener:
        host, port = listener.address
        assert host == "127.0.0.1" and port > 0
        client = connect(listener)
        client.write_message(b'{"seq":1}')
        assert client.read_message() == b'echo:{"seq":1}'
        client.close()


def test_two_concurrent_connections_are_independent() -> None:
    sessions: list[str] = []

    def handler(transport: Transport) -> None:
        sessions.append(threading.current_thread().name)
        echo(transport)

    with TcpListener(on_connection=handler).start() as listener:
        first, second = connect(listener), connect(listener)
        first.write_message(b"a1")
        second.write_message(b"b1")
        assert second.read_message() == b"echo:b1"
        assert first.read_message() == b"echo:a1"
        first.close()  # one ending leaves the other alone
        second.write_message(b"b2")
        assert second.read_message() == b"echo:b2"
        second.close()
        assert wait_until(lambda: len(sessions) == 2)
        assert sessions[0] != sessions[1]


def test_keeps_listening_after_a_client_disconnects() -> None:
    finished = threading.Semaphore(0)

    def handler(transport: Transport) -> None:
        echo(transport)
        finished.release()

    with TcpListener(on_connection=handler).start() as listener:
        for n in range(3):
            client = connect(listener)
            client.write_message(b"%d" % n)
            assert client.read_message() == b"echo:%d" % n
            client.close()
            assert finished.acquire(timeout=5)


def test_close_ends_open_sessions() -> None:
    started = threading.Event()

    def handler(transport: Transport) -> None:
        started.set()
        echo(transport)

    listener = TcpListener(on_connection=handler).start()
    client = connect(listener)
    assert started.wait(5)
    listener.close()
    assert client.read_message() is None  # the server hung up
    with pytest.raises(TransportClosed):
        for _ in range(100):  # the first write may still fit in the socket buffer
            client.write_message(b"x" * 4096)
    client.close()
    listener.close()  # idempotent


def test_a_failing_session_is_logged_and_the_listener_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    calls: list[int] = []

    def handler(transport: Transport) -> None:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("boom")
        echo(transport)

    with TcpListener(on_connection=handler).start() as listener:
        broken = connect(listener)
        assert broken.read_message() is None  # the failed session closed its end
        broken.close()
        client = connect(listener)
        client.write_message(b"ok")
        assert client.read_message() == b"echo:ok"
        client.close()
    assert any("boom" in (r.exc_text or "") for r in caplog.records)


def test_line_framing_by_factory() -> None:
    def handler(transport: Transport) -> None:
        while (line := transport.read_message()) is not None:
            transport.write_message(b"^done,line=" + line + b"\n")

    with TcpListener(on_connection=handler, transport_factory=LineTransport).start() as listener:
        with socket.create_connection(listener.address, timeout=10) as sock:
            sock.sendall(b"-exec-run\r\n-break-list\r")
            received = b""
            while received.count(b"\n") < 2:
                received += sock.recv(4096)
        assert received == b"^done,line=-exec-run\n^done,line=-break-list\n"


def test_client_side_line_transport() -> None:
    with TcpListener(on_connection=echo).start() as listener:
        raw = socket.create_connection(listener.address, timeout=10)
        client = SocketTransport(raw, LineTransport)
        client.write_message(b"Content-Length: 2\r\n\r\nhi")
        assert client.read_message() == b"Content-Length: 7"
        client.close()


def test_serve_forever_in_the_callers_thread() -> None:
    listener = TcpListener(on_connection=echo)
    thread = threading.Thread(target=listener.serve_forever)
    thread.start()
    client = connect(listener)
    client.write_message(b"x")
    assert client.read_message() == b"echo:x"
    client.close()
    listener.close()
    thread.join(5)
    assert not thread.is_alive()


def test_close_without_start() -> None:
    TcpListener(on_connection=echo).close()


def test_non_loopback_address_warns(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="aliceserver.transports.tcp"):
        TcpListener("0.0.0.0", 0, on_connection=echo).close()
    assert any("reachable from other machines" in r.getMessage() for r in caplog.records)


def test_loopback_does_not_warn(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="aliceserver.transports.tcp"):
        TcpListener("localhost", 0, on_connection=echo).close()
    assert not caplog.records


def test_ipv6_loopback() -> None:
    try:
        listener = TcpListener("::1", 0, on_connection=echo)
    except OSError as error:
        pytest.skip(f"no IPv6 loopback here: {error}")
    with listener.start():
        assert listener.address[0] == "::1"
        with socket.create_connection(listener.address, timeout=10) as raw:
            client = SocketTransport(raw)
            client.write_message(b"6")
            assert client.read_message() == b"echo:6"
            client.close()


def test_start_is_idempotent_and_refused_after_close() -> None:
    listener = TcpListener(on_connection=echo)
    assert listener.start() is listener.start()
    listener.close()
    with pytest.raises(RuntimeError):
        listener.start()
