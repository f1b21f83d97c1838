"""LineTransport.ready: whether read_message answers without waiting for input, for the
MI dispatcher that selects on its stdin (select cannot see the lines already buffered)."""

from __future__ import annotations

import io
import os

from aliceserver.transports.stdio import LineTransport


def _pipe() -> tuple[LineTransport, int]:
    read, write = os.pipe()
    return LineTransport(os.fdopen(read, "rb", buffering=0), io.BytesIO()), write


def test_a_line_buffered_with_another_is_ready_without_a_read() -> None:
    transport, write = _pipe()
    try:
        assert not transport.ready(False)  # nothing read yet
        os.write(write, b"-exec-next\n-exec-step-instruction\n")
        assert transport.ready(True)  # one read takes both lines
        assert transport.read_message() == b"-exec-next"
        assert transport.ready(False)  # the second is in the buffer: no read, no wait
        assert transport.read_message() == b"-exec-step-instruction"
        assert not transport.ready(False)
    finally:
        os.close(write)
        transport.close()


def test_a_partial_line_waits_for_its_end() -> None:
    transport, write = _pipe()
    try:
        os.write(write, b"-exec-")
        assert not transport.ready(True)  # read_message would block for the rest
        os.write(write, b"next\r")
        assert transport.ready(True)
        assert transport.read_message() == b"-exec-next"
        os.write(write, b"\n")  # the rest of a \r\n, not an empty line
        assert not transport.ready(True)
    finally:
        os.close(write)
        transport.close()


def test_the_end_of_input_is_ready() -> None:
    transport, write = _pipe()
    os.write(write, b"-gdb-exit")
    os.close(write)
    try:
        assert not transport.ready(True) or transport.read_message() == b"-gdb-exit"
        assert transport.ready(True)
        assert transport.read_message() in (b"-gdb-exit", None)
        assert transport.read_message() is None
    finally:
        transport.close()


def test_an_over_long_line_is_ready_with_its_error_and_then_dropped() -> None:
    read, write = os.pipe()
    transport = LineTransport(os.fdopen(read, "rb", buffering=0), io.BytesIO(), max_line=12)
    try:
        os.write(write, b"0123456789abcdef")
        assert transport.ready(True)  # read_message says the line is too long at once
        try:
            transport.read_message()
        except Exception as error:  # noqa: BLE001 - the transport's own error type
            assert "long" in str(error).lower()
        os.write(write, b"def")
        assert not transport.ready(True)  # the rest of the long line is dropped unread
        os.write(write, b"gh\n-exec-next\n")
        assert transport.ready(True)
        assert transport.read_message() == b"-exec-next"
    finally:
        os.close(write)
        transport.close()
