"""RSP framing, pure (no I/O): `$body#cs` with a modulo-256 checksum, `%body#cs`
notifications, `+`/`-` acks, `}` escapes (the byte xor 0x20) for binary data and `*`
run-length encoding (the byte before repeated `ord(count) - 29` more times).

Receiving follows gdb's remote.c: the checksum covers the body as sent, run-length is
expanded next, and escapes are undone only where the reply is binary (`x` memory, qXfer
data), by the caller who knows which reply it asked for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Union

from aliceserver.regexes import compiled_later

ACK = b"+"
NAK = b"-"
INTERRUPT = b"\x03"
_ESCAPE = 0x7D  # '}'
_RUN = 0x2A  # '*'
_RUN_BASE = 29  # the count character is the number of repeats plus 29
_RUN_MAX = 126 - _RUN_BASE  # keep the count printable
_MUST_ESCAPE = frozenset(b"#$}*")
_BAD_COUNTS = frozenset(b"#$+-")  # counts whose character would read as framing
_HEX = frozenset(b"0123456789abcdefABCDEF")


class FramingError(ValueError):
    """Bytes that are no valid RSP frame (a run with nothing to repeat, a bad escape)."""


def checksum(body: bytes) -> int:
    return sum(body) & 0xFF


def frame(body: bytes, *, notification: bool = False) -> bytes:
    """`$body#cs`; `body` must already be escaped where it carries binary data."""
    start = b"%" if notification else b"$"
    return start + body + b"#" + b"%02x" % checksum(body)


def escape(data: bytes) -> bytes:
    """Binary data made safe for a packet body: `#`, `$`, `}` and `*` become `}` + byte^0x20."""
    out = bytearray()
    for byte in data:
        if byte in _MUST_ESCAPE:
            out += bytes((_ESCAPE, byte ^ 0x20))
        else:
            out.append(byte)
    return bytes(out)


def unescape(data: bytes) -> bytes:
    if _ESCAPE not in data:
        return data
    out = bytearray()
    start = 0
    while True:  # by slices between escapes: a byte loop is 20x slower on a memory reply
        mark = data.find(_ESCAPE, start)
        if mark < 0:
            out += data[start:]
            return bytes(out)
        if mark + 1 >= len(data):
            raise FramingError("a packet ends inside an escape")
        out += data[start:mark]
        out.append(data[mark + 1] ^ 0x20)
        start = mark + 2


def run_length_decode(body: bytes) -> bytes:
    """Each `c*N` as c repeated (N - 29 more times). A stop's page of stack holds hundreds
    of runs: split at the marks (their counts kept), joined once, it decodes twice as fast
    as a loop of finds."""
    if _RUN not in body:
        return body
    pieces = _RUN_MARKS().split(body)  # text, count, text, count, ..., text
    if not pieces[0] or pieces[-1].endswith(b"*"):  # a mark first, or one without its count
        raise FramingError("a run-length mark with nothing to repeat")
    out = [pieces[0]]
    last = pieces[0][-1:]
    for at in range(1, len(pieces), 2):
        out.append(last * (pieces[at][0] - _RUN_BASE))
        text = pieces[at + 1]
        if text:
            out.append(text)
            last = text[-1:]
    return b"".join(out)


_RUN_MARKS = compiled_later(rb"\*(.)", re.DOTALL)


def run_length_encode(body: bytes) -> bytes:
    """As a stub may send: runs of four or more equal bytes as `c*N` (gdbserver's
    try_rle); counts whose character is framing (`#$+-`) are shortened. `body` is escaped
    already, so it holds no `*` of its own."""
    out = bytearray()
    i = 0
    while i < len(body):
        byte = body[i]
        run = 1
        while i + run < len(body) and body[i + run] == byte and run <= _RUN_MAX:
            run += 1
        repeats = run - 1
        while repeats > 0 and repeats + _RUN_BASE in _BAD_COUNTS:
            repeats -= 1
        if repeats >= 3:
            out += bytes((byte, _RUN, repeats + _RUN_BASE))
            i += repeats + 1
        else:
            out.append(byte)
            i += 1
    return bytes(out)


# --- the incoming stream ------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Ack:
    positive: bool


@dataclass(frozen=True, slots=True)
class Packet:
    """A reply, run-length expanded; `valid` is False when its checksum did not match."""

    body: bytes
    valid: bool = True


@dataclass(frozen=True, slots=True)
class Notification:
    """`%Stop:...` and the like, from a stub in non-stop mode: asynchronous, never acked."""

    body: bytes


Received = Union[Ack, Packet, Notification]


class Decoder:
    """Splits the stub's byte stream into acks, packets and notifications. Bytes between
    frames (a stub's noise, a stray `\\x03`) are skipped, as gdb does."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[Received]:
        self._buffer += data
        found: list[Received] = []
        while self._buffer:
            first = self._buffer[0]
            if first in b"+-":
                found.append(Ack(first == ACK[0]))
                del self._buffer[0]
                continue
            if first not in b"$%":
                del self._buffer[0]
                continue
            end = self._buffer.find(b"#")
            if end < 0 or len(self._buffer) < end + 3:
                break  # wait for the rest of the frame
            raw = bytes(self._buffer[1:end])
            sent = bytes(self._buffer[end + 1 : end + 3])
            del self._buffer[: end + 3]
            valid = set(sent) <= _HEX and int(sent, 16) == checksum(raw)
            found.append(_decoded(first, raw, valid))
        return found


def _decoded(start: int, raw: bytes, valid: bool) -> Received:
    try:
        body = run_length_decode(raw) if valid else raw
    except FramingError:
        body, valid = raw, False
    if start == ord("%"):
        return Notification(body)
    return Packet(body, valid)


# --- hex ----------------------------------------------------------------------------
def hex_bytes(data: bytes) -> bytes:
    return data.hex().encode()


def from_hex(text: bytes | str) -> bytes:
    """Bytes from hex digits; `xx` (a register the stub cannot read) reads as zeros."""
    if isinstance(text, bytes):
        text = text.decode("ascii")
    return bytes.fromhex(text.replace("x", "0"))


def hex_int(value: int) -> bytes:
    return b"%x" % value
