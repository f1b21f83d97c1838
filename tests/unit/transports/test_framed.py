"""FramedTransport: DAP's Content-Length framing, its leniency and its recovery."""

from __future__ import annotations

import io
import logging
import os
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aliceserver.errors import ProtocolError
from aliceserver.transports.base import Transport, TransportClosed
from aliceserver.transports.framed import (
    MAX_BODY,
    FramedTransport,
    FramingError,
    HTTPStdioTransport,
)


class ChunkedReader:
    """Hands its data out in the given chunk sizes (cycled), as a pipe or a socket may."""

    def __init__(self, data: bytes, sizes: list[int] | None = None) -> None:
        self._data = data
        self._sizes = sizes or [1 << 20]
        self._turn = 0
        self.closed = False

    def read(self, size: int = -1, /) -> bytes:
        chunk = self._sizes[self._turn % len(self._sizes)]
        self._turn += 1
        if size >= 0:
            chunk = min(chunk, size)
        piece, self._data = self._data[:chunk], self._data[chunk:]
        return piece

    def close(self) -> None:
        self.closed = True


def frame(payload: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(payload) + payload


def reader(data: bytes, sizes: list[int] | None = None) -> FramedTransport:
    return FramedTransport(ChunkedReader(data, sizes), io.BytesIO())


def read_all(transport: FramedTransport) -> list[bytes]:
    messages = []
    while (message := transport.read_message()) is not None:
        messages.append(message)
    return messages


def serialize(messages: list[bytes]) -> bytes:
    out = io.BytesIO()
    writer = FramedTransport(ChunkedReader(b""), out)
    for message in messages:
        writer.write_message(message)
    return out.getvalue()


chunk_sizes = st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=8)


@given(st.lists(st.binary(max_size=200), max_size=8), chunk_sizes)
@settings(deadline=None)  # timing varies on a loaded CI machine
def test_round_trip_with_any_chunking(messages: list[bytes], sizes: list[int]) -> None:
    assert read_all(reader(serialize(messages), sizes)) == messages


@given(st.lists(st.text(max_size=50), max_size=5), chunk_sizes)
@settings(deadline=None)  # timing varies on a loaded CI machine
def test_length_counts_bytes_not_characters(texts: list[str], sizes: list[int]) -> None:
    payloads = [text.encode() for text in texts]
    data = serialize(payloads)
    assert data == b"".join(frame(payload) for payload in payloads)
    assert [p.decode() for p in read_all(reader(data, sizes))] == texts


def test_non_ascii_header_value() -> None:
    payload = '{"text":"grüß 日本 🎉"}'.encode()
    assert serialize([payload]).startswith(b"Content-Length: %d\r\n\r\n" % len(payload))
    assert len(payload) > len(payload.decode())


@pytest.mark.parametrize(
    "header",
    [
        b"Content-Length:2\r\n\r\n",
        b"Content-Length:    2  \r\n\r\n",
        b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 2\r\n\r\n",
        b"Content-Length: 2\r\nX-Other: yes\r\n\r\n",
        b"\r\n\r\nContent-Length: 2\r\n\r\n",  # stray blank lines between frames
        b"noise without colon\r\nContent-Length: 2\r\n\r\n",
    ],
)
def test_lenient_headers(header: bytes) -> None:
    assert read_all(reader(header + b"{}" + frame(b"[]"))) == [b"{}", b"[]"]


BAD_HEADERS = [
    b"Content-Length: -5\r\n\r\n",
    b"Content-Length: abc\r\n\r\nxyz",
    b"Content-Length: \r\n\r\n",
    b"Content-Length: 99999999999999999999999\r\n\r\n",
    b"Content-Length: %d\r\n\r\n" % (MAX_BODY + 1),
    b"content-length: 2\r\n\r\n{}",  # the name is case-sensitive, as clients send it
    b"X-Foo: 1\r\n\r\n",
    b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
    b"garbage\r\n\r\n",
    b"Foo: x\r\nContent-Length: 1e3\r\n\r\n" + b"body with Content-Length inside",
]


@pytest.mark.parametrize("bad", BAD_HEADERS)
@pytest.mark.parametrize("chunk", [1, 7, 1 << 16])
def test_bad_header_raises_once_then_resynchronises(bad: bytes, chunk: int) -> None:
    transport = reader(bad + frame(b'{"seq":1}') + frame(b"{}"), [chunk])
    with pytest.raises(FramingError):
        transport.read_message()
    assert read_all(transport) == [b'{"seq":1}', b"{}"]


def test_framing_error_is_a_protocol_error() -> None:
    assert issubclass(FramingError, ProtocolError)


@given(
    st.binary(max_size=120).filter(lambda garbage: b"Content-Length" not in garbage),
    st.binary(max_size=100),
    chunk_sizes,
)
@settings(max_examples=300, deadline=None)
def test_garbage_before_a_frame_costs_at_most_one_error(
    garbage: bytes, payload: bytes, sizes: list[int]
) -> None:
    transport = reader(garbage + frame(payload) + frame(b"next"), sizes)
    messages, errors = [], 0
    while True:
        try:
            message = transport.read_message()
        except FramingError:
            errors += 1
            continue
        if message is None:
            break
        messages.append(message)
    assert errors <= 1
    assert messages == [payload, b"next"]


def test_oversized_header_block_is_an_error() -> None:
    transport = reader(b"X" * (70 * 1024) + frame(b"ok"), [4096])
    with pytest.raises(FramingError):
        transport.read_message()
    assert read_all(transport) == [b"ok"]


def test_end_of_stream_inside_a_frame_is_end_of_stream() -> None:
    assert read_all(reader(frame(b"whole") + b"Content-Length: 10\r\n\r\nshort")) == [b"whole"]
    assert read_all(reader(b"Content-Len")) == []


def test_large_message_in_small_chunks() -> None:
    payload = os.urandom(3 * 1024 * 1024)
    assert read_all(reader(frame(payload), [4093, 65536, 17])) == [payload]


def test_concurrent_writes_never_interleave() -> None:
    out = io.BytesIO()
    transport = FramedTransport(ChunkedReader(b""), out)
    expected = {bytes([n]) * (1000 + n) for n in range(16)}

    def write(payload: bytes) -> None:
        for _ in range(50):
            transport.write_message(payload)

    threads = [threading.Thread(target=write, args=(p,)) for p in expected]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    messages = read_all(reader(out.getvalue(), [999]))
    assert len(messages) == 16 * 50
    assert set(messages) == expected


def test_close() -> None:
    source, sink = ChunkedReader(frame(b"x")), io.BytesIO()
    transport = FramedTransport(source, sink)
    assert isinstance(transport, Transport)
    transport.close()
    transport.close()  # idempotent
    assert source.closed and sink.closed
    assert transport.read_message() is None
    with pytest.raises(TransportClosed):
        transport.write_message(b"{}")


class BrokenWriter(io.BytesIO):
    def write(self, data: object, /) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_write_to_a_broken_stream_raises_transport_closed() -> None:
    transport = FramedTransport(ChunkedReader(b""), BrokenWriter())
    with pytest.raises(TransportClosed):
        transport.write_message(b"{}")


def test_alias() -> None:
    assert HTTPStdioTransport is FramedTransport


def test_over_a_pipe_and_close_while_a_reader_waits() -> None:
    read_fd, write_fd = os.pipe()
    with open(read_fd, "rb") as pipe_in, open(write_fd, "wb", buffering=0) as pipe_out:
        transport = FramedTransport(pipe_in, io.BytesIO())
        results: list[bytes | None] = []
        first_read = threading.Event()

        def read_twice() -> None:
            results.append(transport.read_message())
            first_read.set()
            results.append(transport.read_message())  # blocks until close / end of stream

        thread = threading.Thread(target=read_twice)
        thread.start()
        data = frame(b'{"a":1}')
        pipe_out.write(data[:5])
        pipe_out.write(data[5:])
        assert first_read.wait(5)
        transport.close()  # must not wait for the blocked reader
        pipe_out.close()  # the reader sees end of stream
        thread.join(5)
        assert not thread.is_alive()
        assert results == [b'{"a":1}', None]
        assert pipe_in.closed


def test_traffic_is_logged_on_the_wire_logger(caplog: pytest.LogCaptureFixture) -> None:
    out = io.BytesIO()
    transport = FramedTransport(ChunkedReader(frame(b'{"in":1}')), out)
    with caplog.at_level(logging.DEBUG, logger="aliceserver.wire"):
        transport.read_message()
        transport.write_message(b'{"out":2}' * 1000)
    lines = [r.getMessage() for r in caplog.records if r.name == "aliceserver.wire"]
    assert lines[0] == "<- b'{\"in\":1}'"
    assert lines[1].startswith("-> ") and lines[1].endswith("(9000 bytes)")
