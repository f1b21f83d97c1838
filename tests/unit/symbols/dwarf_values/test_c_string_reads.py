"""A char *'s string (format.py's c_string) is read in one read up to the print limit or
the page's end, and memory not mapped by pages is still read up to its last byte."""

from __future__ import annotations

from aliceserver.debuggers.symbols.dwarf.format import format_value
from aliceserver.debuggers.symbols.dwarf.types import BaseType, Encoding, PointerType
from aliceserver.debuggers.symbols.dwarf.values import Value
from tests.support.value_fakes import MemoryOnlyFrame

CHAR_P = PointerType(BaseType("char", 1, Encoding.SIGNED_CHAR))


class Reads(MemoryOnlyFrame):
    """Memory from `base` (any length, not a page's multiple), counting the reads asked."""

    def __init__(self, base: int, data: bytes) -> None:
        self.base, self.data = base, data
        self.reads: list[tuple[int, int]] = []

    def read_memory(self, address: int, size: int) -> bytes:
        self.reads.append((address, size))
        offset = address - self.base
        if offset < 0 or offset + size > len(self.data):
            raise OSError("unmapped")
        return self.data[offset : offset + size]


def test_a_string_is_read_at_once() -> None:
    memory = Reads(0x5000, b"x" * 150 + b"\0" + b"y" * 4000)
    assert format_value(Value.of_int(CHAR_P, 0x5000, memory)) == "0x5000 'x' <repeats 150 times>"
    assert memory.reads == [(0x5000, 201)]  # the 200 elements print shows, and one more


def test_a_read_stops_at_the_page_end() -> None:
    memory = Reads(0x5000, b"z" * 8192)
    assert format_value(Value.of_int(CHAR_P, 0x5FF0, memory)).endswith("<repeats 200 times>...")
    assert memory.reads == [(0x5FF0, 16), (0x6000, 185)]


def test_memory_not_mapped_by_pages_is_read_to_its_end() -> None:
    memory = Reads(0x5000, b"abc")  # a board's region ending mid-page, no NUL
    assert format_value(Value.of_int(CHAR_P, 0x5000, memory)) == '0x5000 "abc"'
    assert memory.reads[0] == (0x5000, 201)
    assert memory.reads[1:] == [(0x5000, 1), (0x5001, 1), (0x5002, 1), (0x5003, 1)]
