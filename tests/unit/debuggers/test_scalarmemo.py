"""Scalar descriptions kept across stops (source/scalarmemo.py), on synthetic values: the
same type and bytes are described once, anything else that shows in the text anew."""

from __future__ import annotations

import pytest

from aliceserver.debuggers.source.scalarmemo import scalar_key
from aliceserver.debuggers.source.variables import VariableStore
from aliceserver.debuggers.symbols.dwarf.locexpr import NOT_SAVED, MemoryLoc, OptimizedOut
from aliceserver.debuggers.symbols.dwarf.types import BaseType, Encoding, PointerType
from aliceserver.debuggers.symbols.dwarf.values import Value
from tests.support.value_fakes import MemoryOnlyFrame, described_anew

INT = BaseType("int", 4, Encoding.SIGNED)
BASE = 0x1000


class Memory(MemoryOnlyFrame):
    """A stopped frame's memory that the test writes between 'stops'."""

    def __init__(self, size: int = 64) -> None:
        self.data = bytearray(size)

    def read_memory(self, address: int, size: int) -> bytes:
        offset = address - BASE
        if offset < 0 or offset + size > len(self.data):
            raise OSError("unmapped")
        return bytes(self.data[offset : offset + size])

    def put(self, address: int, value: int) -> None:
        self.data[address - BASE : address - BASE + 4] = value.to_bytes(4, "little", signed=True)


def no_symbol(address: int, demangle: bool = True) -> str | None:
    return None


@pytest.fixture
def described(monkeypatch: pytest.MonkeyPatch) -> tuple[VariableStore, list[str]]:
    """A store and the names it described anew (not from the kept descriptions)."""
    store = VariableStore(no_symbol)
    made = described_anew(store, monkeypatch)
    return store, made


def test_the_same_bytes_are_described_once_and_new_bytes_anew(described: tuple[VariableStore, list[str]]) -> None:
    store, made = described
    memory = Memory()
    memory.put(BASE, 5)
    first = store.describe("i", Value(INT, MemoryLoc(BASE), memory))
    memory.put(BASE, 5)  # the next stop: the same bytes (a new Value, as each stop makes)
    again = store.describe("i", Value(INT, MemoryLoc(BASE), memory))
    assert (first.value, again.value, again.address, made) == ("5", "5", BASE, ["i"])
    memory.put(BASE, -7)
    assert store.describe("i", Value(INT, MemoryLoc(BASE), memory)).value == "-7"
    assert made == ["i", "i"]


def test_the_same_value_elsewhere_keeps_its_own_address(described: tuple[VariableStore, list[str]]) -> None:
    store, made = described
    memory = Memory()
    memory.put(BASE, 9)
    memory.put(BASE + 8, 9)
    store.describe("n", Value(INT, MemoryLoc(BASE), memory))
    other = store.describe("n", Value(INT, MemoryLoc(BASE + 8), memory))
    assert (other.value, other.address, made) == ("9", BASE + 8, ["n"])


def test_what_shows_in_the_text_is_part_of_the_key(described: tuple[VariableStore, list[str]]) -> None:
    store, made = described
    memory = Memory()
    memory.put(BASE, 26)
    assert store.describe("i", Value(INT, MemoryLoc(BASE), memory)).value == "26"
    assert store.describe("i", Value(INT, MemoryLoc(BASE), memory), "x").value == "0x1a"  # print/x
    store.output_format = "o"  # gdb's output-radix 8
    assert store.describe("i", Value(INT, MemoryLoc(BASE), memory)).value == "032"
    assert store.describe("j", Value(INT, MemoryLoc(BASE), memory)).name == "j"
    assert made == ["i", "i", "i", "j"]


def test_only_scalars_whose_bytes_can_be_read_are_kept() -> None:
    memory = Memory()
    assert scalar_key("i", Value(INT, MemoryLoc(BASE), memory), ()) is not None
    assert scalar_key("p", Value(PointerType(INT, 8), MemoryLoc(BASE), memory), ()) is None  # what it points to
    assert scalar_key("b", Value(INT, MemoryLoc(BASE), memory, bit_offset=3, bit_size=2), ()) is None
    assert scalar_key("u", Value(INT, MemoryLoc(BASE + 4096), memory), ()) is None  # unreadable


def test_a_value_optimized_out_is_described_once(described: tuple[VariableStore, list[str]]) -> None:
    store, made = described
    memory = Memory()
    pointer = PointerType(INT, 8)
    first = store.describe("x", Value(pointer, OptimizedOut(), memory))
    again = store.describe("x", Value(pointer, OptimizedOut(), memory))  # the next stop
    lost = store.describe("x", Value(pointer, OptimizedOut(NOT_SAVED), memory))  # an outer frame's
    assert (first.value, again.value, again.reference, lost.value) == ("<optimized out>",) * 2 + (0, "<not saved>")
    assert made == ["x", "x"]
