"""memory_pair: two connected in-process transports."""

from __future__ import annotations

import threading

import pytest

from aliceserver.transports.base import Transport, TransportClosed
from aliceserver.transports.memory import memory_pair


def test_both_directions_in_order() -> None:
    client, server = memory_pair()
    assert isinstance(client, Transport) and isinstance(server, Transport)
    for n in range(5):
        client.write_message(b"c%d" % n)
        server.write_message(b"s%d" % n)
    assert [server.read_message() for _ in range(5)] == [b"c%d" % n for n in range(5)]
    assert [client.read_message() for _ in range(5)] == [b"s%d" % n for n in range(5)]


def test_messages_are_copied() -> None:
    client, server = memory_pair()
    data = bytearray(b"abc")
    client.write_message(bytes(data))
    data[0] = 0
    assert server.read_message() == b"abc"


def test_close_delivers_what_was_sent_then_the_end() -> None:
    client, server = memory_pair()
    client.write_message(b"last words")
    client.close()
    client.close()  # idempotent
    assert server.read_message() == b"last words"
    assert server.read_message() is None
    assert server.read_message() is None  # the end stays the end
    assert client.read_message() is None
    with pytest.raises(TransportClosed):
        client.write_message(b"x")
    with pytest.raises(TransportClosed):
        server.write_message(b"to a closed peer")


def test_close_wakes_both_blocked_readers() -> None:
    client, server = memory_pair()
    results: list[bytes | None] = []
    threads = [
        threading.Thread(target=lambda end=end: results.append(end.read_message()))
        for end in (client, server)
    ]
    for thread in threads:
        thread.start()
    server.close()
    for thread in threads:
        thread.join(5)
        assert not thread.is_alive()
    assert results == [None, None]


def test_concurrent_writers() -> None:
    client, server = memory_pair()

    def write(tag: int) -> None:
        for n in range(200):
            client.write_message(b"%d:%d" % (tag, n))

    threads = [threading.Thread(target=write, args=(tag,)) for tag in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    received = [server.read_message() for _ in range(800)]
    assert sorted(received, key=repr) == sorted(
        (b"%d:%d" % (tag, n) for tag in range(4) for n in range(200)), key=repr
    )
    for tag in range(4):  # each writer's own messages keep their order
        own = [m for m in received if m is not None and m.startswith(b"%d:" % tag)]
        assert own == [b"%d:%d" % (tag, n) for n in range(200)]


def test_pairs_are_independent() -> None:
    a_client, a_server = memory_pair()
    b_client, b_server = memory_pair()
    a_client.write_message(b"a")
    b_client.write_message(b"b")
    assert b_server.read_message() == b"b"
    assert a_server.read_message() == b"a"
