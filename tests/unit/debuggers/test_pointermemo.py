"""Pointer descriptions kept across stops (source/pointermemo.py), on synthetic values: the
same pointer type and bytes are described once, while what it shows of other memory (a
char *'s string, the symbol at its address) and its children's reference are made anew at
each stop, as a description from scratch would make them."""

from __future__ import annotations

import pytest

from aliceserver.debuggers.source.pointermemo import pointer_key
from aliceserver.debuggers.source.variables import VariableStore
from aliceserver.debuggers.symbols.dwarf.locexpr import MemoryLoc
from aliceserver.debuggers.symbols.dwarf.types import BaseType, Encoding, PointerType
from aliceserver.debuggers.symbols.dwarf.values import Value
from tests.support.value_fakes import MemoryOnlyFrame, described_anew

CHAR = BaseType("char", 1, Encoding.SIGNED_CHAR)
INT = BaseType("int", 4, Encoding.SIGNED)
SLOT = 0x1000  # where the pointer variable is
TEXT = 0x2000  # what it points to
GLOBAL = 0x3000  # a symbol's address
# The types are read once from the DWARF: the same objects at every stop
CHAR_P = PointerType(CHAR, 8)
INT_P = PointerType(INT, 8)
WIDE_P = PointerType(BaseType("wchar_t", 4, Encoding.SIGNED), 8)


class Frame(MemoryOnlyFrame):
    """Memory of one 'stop' made of mapped ranges, written by the test between stops."""

    def __init__(self) -> None:
        self.ranges: dict[int, bytearray] = {
            SLOT: bytearray(8),
            TEXT: bytearray(64),
            GLOBAL: bytearray(16),
        }

    def read_memory(self, address: int, size: int) -> bytes:
        for start, data in self.ranges.items():
            if start <= address and address + size <= start + len(data):
                return bytes(data[address - start : address - start + size])
        raise OSError("unmapped")

    def point(self, address: int) -> None:
        self.ranges[SLOT][:8] = address.to_bytes(8, "little")

    def write(self, address: int, data: bytes) -> None:
        self.ranges[address][: len(data)] = data


class Symbols:
    """The symbolizer: `table+N` at GLOBAL + N until the test renames it."""

    def __init__(self) -> None:
        self.name = "table"

    def __call__(self, address: int, demangle: bool = True) -> str | None:
        return f"{self.name}+{address - GLOBAL}" if GLOBAL <= address < GLOBAL + 16 else None


@pytest.fixture
def store(monkeypatch: pytest.MonkeyPatch) -> tuple[VariableStore, Symbols, list[str]]:
    """A store, its symbolizer and the names it described anew (not from a kept shape)."""
    symbols = Symbols()
    store = VariableStore(symbols)
    made = described_anew(store, monkeypatch)
    return store, symbols, made


def _pointer(t: PointerType, frame: Frame) -> Value:
    return Value(t, MemoryLoc(SLOT), frame)  # each stop makes a new Value


def test_a_char_pointer_shows_the_string_there_now(
    store: tuple[VariableStore, Symbols, list[str]],
) -> None:
    values, _symbols, made = store
    frame = Frame()
    frame.point(TEXT)
    frame.write(TEXT, b"round trip\0")
    first = values.describe("text", _pointer(CHAR_P, frame))
    frame.write(TEXT, b"written\0")  # the program wrote the string before the next stop
    again = values.describe("text", _pointer(CHAR_P, frame))
    assert (first.value, again.value) == ('0x2000 "round trip"', '0x2000 "written"')
    assert (again.type, again.address, again.reference, made) == ("char *", SLOT, 0, ["text"])
    frame.point(TEXT + 8)  # another address: described anew
    assert values.describe("text", _pointer(CHAR_P, frame)).value == '0x2008 "ip"'
    assert made == ["text", "text"]


def test_a_pointer_names_its_symbol_and_gets_a_new_reference_each_stop(
    store: tuple[VariableStore, Symbols, list[str]],
) -> None:
    values, symbols, made = store
    frame = Frame()
    frame.point(GLOBAL + 4)
    frame.write(GLOBAL, (7).to_bytes(4, "little") + (42).to_bytes(4, "little"))
    first = values.describe("p", _pointer(INT_P, frame), top=True)
    values.clear()  # the program ran: references end
    symbols.name = "other"  # a library's symbols read anew
    again = values.describe("p", _pointer(INT_P, frame), top=True)
    assert first.value == "(int *) 0x3004 <table+4>"
    assert again.value == "(int *) 0x3004 <other+4>"
    assert again.reference and again.named_children == 1 and made == ["p"]
    [child] = values.children(again.reference, 0, None)
    assert (child.name, child.value) == ("*", "42")


def test_only_pointers_shown_from_their_bytes_are_kept() -> None:
    frame = Frame()
    assert pointer_key("p", _pointer(INT_P, frame), ()) is not None
    assert pointer_key("p", _pointer(INT_P, frame), (), dynamic=True) is not None  # no vtable there
    assert pointer_key("i", Value(INT, MemoryLoc(SLOT), frame), ()) is None  # not a pointer
    assert pointer_key("w", _pointer(WIDE_P, frame), ()) is None  # a wide string
    unreadable = Value(INT_P, MemoryLoc(0x9000), frame)
    assert pointer_key("u", unreadable, ()) is None
