"""The raw DWARF reading kit: LEB128 numbers, strings, unit headers and a byte cursor.

Every raw reader (units, names, code ranges, line programs, range lists, location and CFA
expressions) reads its bytes through these, since pyelftools' objects are 10-100x slower
on the hot paths. The module functions take `(data, pos)` and return `(value, next pos)`:
a method call per number costs measurably more in the DIE walks and the line program
loop. ByteReader is the cursor for the expression interpreters, which want one error
type of their own (a subclass says which, through `error`).

Past the end of `data` the functions raise IndexError, a LEB128 longer than any real one
RunawayLeb (a ValueError): the callers turn both into their own error.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from elftools.dwarf.enums import ENUM_DW_UT

from aliceserver.errors import TargetError

# Longer is a corrupt or endless sequence (and decoding it would cost quadratic time).
MAX_LEB_BITS = 640
UT_TYPE = ENUM_DW_UT["DW_UT_type"]
UT_SKELETON = ENUM_DW_UT["DW_UT_skeleton"]
UT_SPLIT_COMPILE = ENUM_DW_UT["DW_UT_split_compile"]
UT_SPLIT_TYPE = ENUM_DW_UT["DW_UT_split_type"]


class RunawayLeb(ValueError):
    """A LEB128 number of more than MAX_LEB_BITS bits: corrupt data."""


def uleb(data: bytes, pos: int) -> tuple[int, int]:
    """(value, next position) of the ULEB128 at `pos`; IndexError past the end."""
    byte = data[pos]
    if byte < 0x80:  # most numbers are one byte: no loop for them
        return byte, pos + 1
    result = byte & 0x7F
    shift = 7
    while True:
        pos += 1
        byte = data[pos]
        if byte < 0x80:
            return result | byte << shift, pos + 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if shift > MAX_LEB_BITS:
            raise RunawayLeb(f"LEB128 number at {pos:#x} is too long")


def sleb(data: bytes, pos: int) -> tuple[int, int]:
    """(value, next position) of the SLEB128 at `pos`; IndexError past the end."""
    byte = data[pos]
    if byte < 0x80:
        return (byte - 0x80 if byte & 0x40 else byte), pos + 1
    result = byte & 0x7F
    shift = 7
    while True:
        pos += 1
        byte = data[pos]
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return (result - (1 << shift) if byte & 0x40 else result), pos + 1
        if shift > MAX_LEB_BITS:
            raise RunawayLeb(f"LEB128 number at {pos:#x} is too long")


def skip_leb(data: bytes, pos: int) -> int:
    """The position after the LEB128 at `pos`, its value unread."""
    while data[pos] >= 0x80:
        pos += 1
    return pos + 1


def cstring(data: bytes, pos: int) -> tuple[str, int]:
    """(text, next position) of the NUL-terminated string at `pos`; ValueError unterminated."""
    end = data.index(b"\0", pos)
    return data[pos:end].decode("utf-8", "surrogateescape"), end + 1


def string_at(section: bytes, offset: int) -> str:
    """The string at `offset` of a string section (.debug_str, .debug_line_str)."""
    if not 0 <= offset < len(section):
        raise TargetError(f"string offset {offset:#x} is outside its section")
    return cstring(section, offset)[0]


def unit_length(data: bytes, pos: int) -> tuple[int, int, int]:
    """(length, offset size, position after the length field) of a DWARF unit: 32-bit
    DWARF, or 64-bit after the 0xffffffff escape; struct.error past the end."""
    (length,) = struct.unpack_from("<I", data, pos)
    if length == 0xFFFFFFFF:
        (length,) = struct.unpack_from("<Q", data, pos + 4)
        return length, 8, pos + 12
    if length >= 0xFFFFFFF0:
        raise TargetError(f"reserved unit length {length:#x}")
    return length, 4, pos + 4


def unit_header(info: bytes, pos: int, osize: int) -> tuple[int, int, int, int] | None:
    """(version, address size, .debug_abbrev offset, where the first DIE is) of the
    .debug_info unit whose header goes on at `pos` (after its length); None for type units
    (their types are reached through the units that use them). TargetError for DWARF 1."""
    (version,) = struct.unpack_from("<H", info, pos)
    pos += 2
    if version >= 5:
        unit_type, address_size = info[pos], info[pos + 1]
        abbrev_offset = int.from_bytes(info[pos + 2 : pos + 2 + osize], "little")
        pos += 2 + osize
        if unit_type in (UT_TYPE, UT_SPLIT_TYPE):
            return None
        if unit_type in (UT_SKELETON, UT_SPLIT_COMPILE):
            pos += 8  # dwo_id
    elif version >= 2:
        abbrev_offset = int.from_bytes(info[pos : pos + osize], "little")
        address_size = info[pos + osize]
        pos += osize + 1
    else:
        raise TargetError(f"unsupported DWARF version {version}")
    return version, address_size, abbrev_offset, pos


class ByteReader:
    """A cursor over `data[pos:end]`, little-endian. Running past `end` (or a runaway
    LEB128) raises `error(at, runaway)`: a subclass gives its readers' own error."""

    __slots__ = ("data", "pos", "end")

    def __init__(self, data: bytes, pos: int = 0, end: int | None = None) -> None:
        self.data = data
        self.pos = pos
        self.end = len(data) if end is None else min(end, len(data))

    def error(self, at: int, runaway: bool) -> Exception:
        """The exception for a read that overruns at `at` (or a runaway LEB128 there)."""
        if runaway:
            return TargetError(f"LEB128 number at {at:#x} is too long")
        return TargetError(f"DWARF data truncated at offset {at:#x}")

    def at_end(self) -> bool:
        return self.pos >= self.end

    def take(self, size: int) -> bytes:
        at = self.pos
        if size < 0 or at < 0 or at + size > self.end:
            raise self.error(at, False)
        self.pos = at + size
        return bytes(self.data[at : at + size])

    def u8(self) -> int:
        at = self.pos
        if at < 0 or at >= self.end:
            raise self.error(at, False)
        self.pos = at + 1
        return self.data[at]

    def unsigned(self, size: int) -> int:
        at = self.pos
        if size < 0 or at < 0 or at + size > self.end:
            raise self.error(at, False)
        self.pos = at + size
        return int.from_bytes(self.data[at : at + size], "little")

    def signed(self, size: int) -> int:
        at = self.pos
        if size < 0 or at < 0 or at + size > self.end:
            raise self.error(at, False)
        self.pos = at + size
        return int.from_bytes(self.data[at : at + size], "little", signed=True)

    def u16(self) -> int:
        return self.unsigned(2)

    def u32(self) -> int:
        return self.unsigned(4)

    def u64(self) -> int:
        return self.unsigned(8)

    def offset(self, osize: int) -> int:
        """A section offset: 4 bytes in 32-bit DWARF, 8 in 64-bit."""
        return self.unsigned(osize)

    def uleb(self) -> int:
        return self._leb(uleb)

    def sleb(self) -> int:
        return self._leb(sleb)

    def _leb(self, decode: Callable[[bytes, int], tuple[int, int]]) -> int:
        at = self.pos
        try:
            value, pos = decode(self.data, at)
        except RunawayLeb:
            raise self.error(at, True) from None
        except IndexError:
            raise self.error(len(self.data), False) from None
        if pos > self.end or at < 0:
            raise self.error(self.end, False)
        self.pos = pos
        return value

    def cstring(self) -> bytes:
        """The NUL-terminated bytes at the cursor, without the NUL."""
        at = self.pos
        stop = self.data.find(b"\0", at, self.end) if at >= 0 else -1
        if stop < 0:
            raise self.error(self.end, False)
        self.pos = stop + 1
        return bytes(self.data[at:stop])
