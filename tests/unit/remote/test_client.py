"""The session over a fake stub: qSupported values, chunked qXfer, `O` output before a
stop, error replies."""

from __future__ import annotations

import pytest

from aliceserver.debuggers.remote import packets, stops
from aliceserver.debuggers.remote.client import RemoteClient
from aliceserver.debuggers.remote.connection import Connection
from aliceserver.debuggers.remote.errors import RemoteError, RemoteUnsupported
from tests.support.rsp_fake import FakeStub

_DOCUMENT = (
    b"<threads>"
    + b"".join(b'<thread id="p10.%x" name="worker %d"/>' % (16 + i, i) for i in range(40))
    + b"</threads>"
)


def _answer(body: bytes) -> list[bytes]:
    if body.startswith(b"qSupported"):
        return [
            b"PacketSize=80;qXfer:threads:read+;QStartNoAckMode+;multiprocess+;hwbreak-;swbreak+"
        ]
    if body == b"QStartNoAckMode":
        return [b"OK"]
    if body == b"vCont?":
        return [b"vCont;c;C;s;S;t"]
    if body.startswith(b"qXfer:threads:read::"):
        offset, length = (int(part, 16) for part in body.rsplit(b":", 1)[1].split(b","))
        part = _DOCUMENT[offset : offset + length]
        more = offset + length < len(_DOCUMENT)
        return [(b"m" if more else b"l") + packets.escape(part)]
    if body == b"vCont;c":
        return [b"O" + "hello\n".encode().hex().encode(), b"T05thread:p10.10;swbreak:;"]
    if body.startswith(b"Hg"):
        return [b"E16"]
    return [b""]


def _client() -> tuple[RemoteClient, FakeStub]:
    stub = FakeStub(_answer)
    client = RemoteClient(Connection(stub))
    client.negotiate()
    return client, stub


def test_negotiation() -> None:
    client, stub = _client()
    assert client.packet_size == 0x80 and client.multiprocess
    assert client.supports("swbreak") and not client.supports("hwbreak")
    assert not client.connection.acks
    assert client.vcont == frozenset("cCsSt")


def test_qxfer_is_read_in_chunks_within_the_packet_size() -> None:
    client, stub = _client()
    threads = client.threads()
    assert [t.ref.tid for t in threads] == list(range(16, 56))
    assert threads[3].name == "worker 3"
    xfers = [r for r in stub.requests if r.startswith(b"qXfer")]
    assert len(xfers) >= len(_DOCUMENT) // 0x80


def test_output_comes_before_the_stop() -> None:
    client, _ = _client()
    said: list[str] = []
    client.on_output = said.append
    reply = client.resume(b"vCont;c", timeout=1)
    assert said == ["hello\n"]
    assert isinstance(reply, stops.SignalStop) and reply.reason == "swbreak"


def test_errors_and_unknown_requests() -> None:
    client, _ = _client()
    with pytest.raises(RemoteError, match="error 16"):
        client.ask(b"Hgp10.10")
    with pytest.raises(RemoteUnsupported):
        client.ask(b"qUnknownThing")
    with pytest.raises(RemoteUnsupported):
        client.xfer_read("auxv")


def test_a_prefetched_thread_list_is_read_once_and_a_resume_makes_it_stale() -> None:
    from aliceserver.debuggers.remote.threadlist import ThreadList

    client, stub = _client()
    threads = ThreadList(client)
    threads.prefetch()  # asked at once, its answer not read yet
    client.connection.flush()
    assert stub.requests[-1].startswith(b"qXfer:threads:read::0,")
    asked = len(stub.requests)
    assert [ref.tid for ref in threads.refs()] == list(range(16, 56))  # the rest in chunks
    assert stub.requests[asked - 1 :].count(stub.requests[asked - 1]) == 1  # not asked again
    threads.refs()
    assert len([r for r in stub.requests if r.startswith(b"qXfer")]) == len(stub.requests[asked - 1 :])
    threads.forget()
    threads.prefetch()
    client.connection.flush()
    threads.forget()  # a resume before the list was read: its late answer is dropped
    client.ask(b"vCont?")  # reads that answer
    before = len(stub.requests)
    assert len(threads.refs()) == 40
    assert stub.requests[before].startswith(b"qXfer:threads:read::0,")  # asked anew
