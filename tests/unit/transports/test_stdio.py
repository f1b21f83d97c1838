"""LineTransport: MI lines ended by \\n, \\r\\n or a lone \\r (Vim termdebug)."""

from __future__ import annotations

import io
import os
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aliceserver.transports.base import FramingError, Transport, TransportClosed
from aliceserver.transports.stdio import MAX_LINE, LineTransport


class ChunkedReader:
    """Hands out pre-split chunks, one per read."""

    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = [chunk for chunk in chunks if chunk]
        self.closed = False

    def read(self, size: int = -1, /) -> bytes:
        if not self._chunks:
            return b""
        chunk = self._chunks.pop(0)
        if 0 <= size < len(chunk):
            chunk, rest = chunk[:size], chunk[size:]
            self._chunks.insert(0, rest)
        return chunk

    def close(self) -> None:
        self.closed = True


def split(data: bytes, sizes: list[int]) -> list[bytes]:
    chunks, turn = [], 0
    while data:
        size = sizes[turn % len(sizes)]
        chunks.append(data[:size])
        data, turn = data[size:], turn + 1
    return chunks


def lines_of(chunks: list[bytes], **kwargs: int) -> list[bytes]:
    transport = LineTransport(ChunkedReader(chunks), io.BytesIO(), **kwargs)
    lines = []
    while (line := transport.read_message()) is not None:
        lines.append(line)
    return lines


UTF8_COMMAND = '-data-evaluate-expression "grüß"'.encode()
line_text = st.binary(max_size=60).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b""))


@given(
    st.lists(st.tuples(line_text, st.sampled_from([b"\n", b"\r\n", b"\r"])), max_size=10),
    st.lists(st.integers(min_value=1, max_value=30), min_size=1, max_size=6),
)
@settings(deadline=None)  # timing varies on a loaded CI machine
def test_round_trip_with_any_terminator_and_chunking(
    lines: list[tuple[bytes, bytes]], sizes: list[int]
) -> None:
    data, expected, previous = b"", [], b""
    for text, terminator in lines:
        if previous == b"\r" and not text and terminator == b"\n":
            terminator = b"\r\n"  # "\r" + "" + "\n" is one CRLF, not two lines: not expressible
        data += text + terminator
        expected.append(text)
        previous = terminator
    assert lines_of(split(data, sizes)) == expected


def test_lone_cr_then_lf_in_a_later_read_is_one_terminator() -> None:
    assert lines_of([b"-exec-run\r", b"\n-exec-next\r", b"\r\n"]) == [
        b"-exec-run",
        b"-exec-next",
        b"",
    ]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"a\n\nb\n", [b"a", b"", b"b"]),
        (b"a\r\rb\r", [b"a", b"", b"b"]),
        (b"a\n\rb\r\n", [b"a", b"", b"b"]),
        (b"last line without terminator", [b"last line without terminator"]),
        (b"", []),
        (UTF8_COMMAND + b"\n", [UTF8_COMMAND]),
    ],
)
def test_terminators(data: bytes, expected: list[bytes]) -> None:
    assert lines_of([data]) == expected
    assert lines_of(split(data, [1])) == expected


def test_line_is_returned_when_its_cr_arrives_without_waiting_for_more() -> None:
    read_fd, write_fd = os.pipe()
    with open(read_fd, "rb") as pipe_in, open(write_fd, "wb", buffering=0) as pipe_out:
        transport = LineTransport(pipe_in, io.BytesIO())
        got: list[bytes | None] = []
        thread = threading.Thread(target=lambda: got.append(transport.read_message()))
        thread.start()
        pipe_out.write(b"-exec-run\r")  # termdebug then waits for the answer
        thread.join(5)
        assert got == [b"-exec-run"]
        pipe_out.write(b"\n-exec-next\n")
        pipe_out.close()
        assert transport.read_message() == b"-exec-next"
        assert transport.read_message() is None
        transport.close()


@pytest.mark.parametrize("chunk", [1, 3, 100])
def test_overlong_line_is_an_error_and_reading_goes_on(chunk: int) -> None:
    data = b"0123456789ABC\nok\n" + b"x" * 30 + b"\r\nstill ok\n"
    transport = LineTransport(ChunkedReader(split(data, [chunk])), io.BytesIO(), max_line=10)
    with pytest.raises(FramingError):
        transport.read_message()
    assert transport.read_message() == b"ok"
    with pytest.raises(FramingError):
        transport.read_message()
    assert transport.read_message() == b"still ok"
    assert transport.read_message() is None


def test_line_of_exactly_the_limit_is_fine() -> None:
    assert lines_of([b"0123456789\n"], max_line=10) == [b"0123456789"]


def test_default_limit_is_one_mebibyte() -> None:
    assert MAX_LINE == 1024 * 1024
    fits = b"a" * MAX_LINE
    assert lines_of(split(fits + b"\n", [65536])) == [fits]
    transport = LineTransport(ChunkedReader(split(fits + b"a\nnext\n", [65536])), io.BytesIO())
    with pytest.raises(FramingError):
        transport.read_message()
    assert transport.read_message() == b"next"


def test_writes_are_exactly_the_bytes_given() -> None:
    out = io.BytesIO()
    transport = LineTransport(ChunkedReader([]), out)
    assert isinstance(transport, Transport)
    transport.write_message(b'^done,value="1"\n(gdb) \n')
    transport.write_message(b"no newline")
    assert out.getvalue() == b'^done,value="1"\n(gdb) \nno newline'


def test_concurrent_writes_never_interleave() -> None:
    out = io.BytesIO()
    transport = LineTransport(ChunkedReader([]), out)
    records = [b"~" + bytes([65 + n]) * 500 + b"\n" for n in range(8)]

    def write(record: bytes) -> None:
        for _ in range(100):
            transport.write_message(record)

    threads = [threading.Thread(target=write, args=(record,)) for record in records]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = out.getvalue().split(b"\n")[:-1]
    assert len(lines) == 800
    assert {line + b"\n" for line in lines} == set(records)


def test_close() -> None:
    source, sink = ChunkedReader([b"a\n"]), io.BytesIO()
    transport = LineTransport(source, sink)
    transport.close()
    assert source.closed and sink.closed
    assert transport.read_message() is None
    with pytest.raises(TransportClosed):
        transport.write_message(b"x\n")
