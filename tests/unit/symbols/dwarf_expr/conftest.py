"""A fake frame with a few typed variables, for evaluator tests without a process."""

from __future__ import annotations

import struct

import pytest

from aliceserver.debuggers.symbols.dwarf.locexpr import MemoryLoc, RegisterLoc
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    EnumType,
    Member,
    PointerType,
    StructType,
    Type,
    TypedefType,
)
from aliceserver.debuggers.symbols.dwarf.values import Value

INT = BaseType("int", 4, Encoding.SIGNED)
CHAR = BaseType("char", 1, Encoding.SIGNED_CHAR)
DOUBLE = BaseType("double", 8, Encoding.FLOAT)
UCHAR = BaseType("unsigned char", 1, Encoding.UNSIGNED_CHAR)
BASE = 0x1000


class FakeFrame:
    pc = 0x400000
    load_bias = 0
    fs_base = None

    def __init__(self) -> None:
        self.mem = bytearray(0x400)
        self.regs = {0: 7, 6: 0x7FF0, 7: 0x7FE0, 16: 0x400000}

    def read_memory(self, address: int, size: int) -> bytes:
        off = address - BASE
        if off < 0 or off + size > len(self.mem) or size < 0:
            raise OSError("unmapped")
        return bytes(self.mem[off : off + size])

    def write_memory(self, address: int, data: bytes) -> None:
        off = address - BASE
        if off < 0 or off + len(data) > len(self.mem):
            raise OSError("unmapped")
        self.mem[off : off + len(data)] = data

    def register(self, regno: int) -> int | None:
        return self.regs.get(regno)

    def write_register(self, regno: int, value: int) -> None:
        self.regs[regno] = value & ((1 << 64) - 1)

    def cfa(self) -> int | None:
        return None


class FakeSymbols:
    """i=5 (int), arr={1,2,3,4}, p=&i, pt={x=3,y=-4}, c='a', d=2.5, name="hey", color=GREEN,
    uc=200, pp=&pt, r (int in register 0)."""

    def __init__(self, cplus: bool = False) -> None:
        self.frame = FakeFrame()
        self.cplus = cplus
        point = StructType("struct", "point", 8)
        point.members = [Member("x", INT, 0), Member("y", INT, 4)]
        color = EnumType("color", 4, [("RED", 0), ("GREEN", 1)])
        self.types: dict[str, Type] = {
            "struct point": point,
            "point_t": TypedefType("point_t", point),
            "enum color": color,
            "myint": TypedefType("myint", INT),
        }
        layout: list[tuple[str, Type, int, bytes]] = [
            ("i", INT, 0x00, struct.pack("<i", 5)),
            ("arr", ArrayType(INT, 4), 0x10, struct.pack("<4i", 1, 2, 3, 4)),
            ("p", PointerType(INT), 0x20, struct.pack("<Q", BASE)),
            ("pt", point, 0x30, struct.pack("<ii", 3, -4)),
            ("c", CHAR, 0x38, b"a"),
            ("d", DOUBLE, 0x40, struct.pack("<d", 2.5)),
            ("name", PointerType(CHAR), 0x48, struct.pack("<Q", BASE + 0x100)),
            ("color", color, 0x50, struct.pack("<i", 1)),
            ("uc", UCHAR, 0x54, bytes([200])),
            ("pp", PointerType(point), 0x58, struct.pack("<Q", BASE + 0x30)),
        ]
        self.vars: dict[str, tuple[Type, int]] = {}
        for name, t, off, data in layout:
            self.frame.mem[off : off + len(data)] = data
            self.vars[name] = (t, BASE + off)
        self.frame.mem[0x100:0x104] = b"hey\0"

    def lookup(self, name: str) -> Value | None:
        if name == "r":
            return Value(INT, RegisterLoc(0), self.frame)
        if name in ("RED", "GREEN"):
            return Value.of_int(self.types["enum color"], int(name == "GREEN"), self.frame)
        found = self.vars.get(name)
        if found is None:
            return None
        return Value(found[0], MemoryLoc(found[1]), self.frame)

    def lookup_type(self, name: str) -> Type | None:
        return self.types.get(name)


@pytest.fixture
def symbols() -> FakeSymbols:
    return FakeSymbols()
