"""Typed values on a DWARF expression stack (DWARF 5 section 2.5.1), as gdb's dwarf2/expr.c
keeps them: DW_OP_regval_type, DW_OP_const_type and DW_OP_deref_type push a value of a base
type, DW_OP_convert and DW_OP_reinterpret change its type, and arithmetic and comparisons
act on two values of the same type. gcc -O2 writes them for float and double values kept in
xmm registers (`DW_OP_regval_type 17 <double>; DW_OP_const_type <double> 3.0; DW_OP_mul`).

An entry of the stack is an int (the generic type: an address-sized integer, which the
untyped operations use) or a Typed value.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import Any

from aliceserver.errors import ProtocolError

MASK64 = (1 << 64) - 1
# DW_ATE_*: how a base type's bytes are read (the others are not arithmetic types).
_KINDS = {0x01: "unsigned", 0x02: "unsigned", 0x04: "float", 0x05: "signed", 0x06: "signed",
          0x07: "unsigned", 0x08: "unsigned", 0x10: "unsigned"}  # fmt: skip
_FLOAT_FORMATS = {4: "<f", 8: "<d"}
_COMPARISONS = {0x29: "eq", 0x2A: "ge", 0x2B: "gt", 0x2C: "le", 0x2D: "lt", 0x2E: "ne"}


class TypedStackError(ProtocolError):
    """A typed operation gdb refuses too (the value is then not known)."""


@dataclass(frozen=True, slots=True)
class BaseType:
    kind: str  # "signed", "unsigned" or "float"
    size: int

    @classmethod
    def of_encoding(cls, encoding: int, size: int) -> BaseType:
        kind = _KINDS.get(encoding)
        if kind is None or size <= 0:
            raise TypedStackError(f"DWARF base type encoding {encoding:#x} is not arithmetic")
        return cls(kind, size)


GENERIC = BaseType("signed", 8)  # gdb's "<signed DWARF address type>"


def base_type_in(unit: Any, offset: int) -> BaseType:
    """The DW_TAG_base_type at `offset` in pyelftools' `unit` (CU-relative, as the typed
    operations name it)."""
    die = unit.get_DIE_from_refaddr(unit.cu_offset + offset)
    if die.tag != "DW_TAG_base_type":
        raise TypedStackError(f"DW_OP typed operation names a {die.tag} at <{offset:#x}>, not a base type")
    encoding, size = die.attributes.get("DW_AT_encoding"), die.attributes.get("DW_AT_byte_size")
    if encoding is None or size is None:
        raise TypedStackError(f"the base type at <{offset:#x}> has no encoding or size")
    return BaseType.of_encoding(int(encoding.value), int(size.value))


@dataclass(frozen=True, slots=True)
class Typed:
    type: BaseType
    data: bytes  # little-endian, type.size bytes


Entry = int | Typed


def type_of(entry: Entry) -> BaseType:
    return entry.type if isinstance(entry, Typed) else GENERIC


def as_integer(entry: Entry) -> int:
    """The entry as the untyped operations take it (an address, a count): an integer's value
    modulo 2**64; a float is refused as gdb's dwarf_require_integral does."""
    if not isinstance(entry, Typed):
        return entry & MASK64
    if entry.type.kind == "float":
        raise TypedStackError("integral type expected in DWARF expression")
    return int(_number(entry)) & MASK64


def stack_bytes(entry: Entry) -> bytes:
    """The bytes of a DW_OP_stack_value result."""
    return entry.data if isinstance(entry, Typed) else (entry & MASK64).to_bytes(8, "little")


def from_bits(t: BaseType, bits: int) -> Entry:
    """A value of type `t` made of the low bytes of `bits` (zero-extended)."""
    bits &= (1 << (8 * t.size)) - 1
    return bits if t == GENERIC else Typed(t, bits.to_bytes(t.size, "little"))


def make(t: BaseType, number: int | float) -> Entry:
    """A value of type `t` from a Python number (an int wraps, a float rounds to t's size)."""
    if t.kind == "float":
        fmt = _FLOAT_FORMATS.get(t.size)
        if fmt is None:
            raise TypedStackError(f"a {t.size}-byte float on the DWARF stack is not supported")
        try:
            data = struct.pack(fmt, float(number))
        except OverflowError:
            data = struct.pack(fmt, math.copysign(math.inf, float(number)))
        return Typed(t, data)
    if isinstance(number, float):
        if not math.isfinite(number):
            raise TypedStackError("a float that is not finite has no integer value")
        number = int(number)  # C's conversion truncates toward zero
    value = number & ((1 << (8 * t.size)) - 1)
    return value if t == GENERIC else Typed(t, value.to_bytes(t.size, "little"))


def convert(entry: Entry, t: BaseType) -> Entry:
    """DW_OP_convert: the same number in type `t` (GENERIC for type 0)."""
    return make(t, _number(entry))


def reinterpret(entry: Entry, t: BaseType) -> Entry:
    """DW_OP_reinterpret: the same bits read as type `t`, whose size must be the same."""
    data = stack_bytes(entry)
    if len(data) != t.size:
        raise TypedStackError("DW_OP_reinterpret has wrong size")
    return int.from_bytes(data, "little") if t == GENERIC else Typed(t, data)


def negate(entry: Entry) -> Entry:
    return make(type_of(entry), -_number(entry))


def absolute(entry: Entry) -> Entry:
    return make(type_of(entry), abs(_number(entry)))


def complement(entry: Entry) -> Entry:
    t = _integral(entry)
    return make(t, ~int(_number(entry)))


def binary(op: int, first: Entry, second: Entry) -> Entry:
    """`first OP second` for a DWARF binary operation (first pushed first)."""
    t = type_of(first)
    if t != type_of(second):
        raise TypedStackError("Incompatible types on DWARF stack")
    a, b = _number(first), _number(second)
    if op in _COMPARISONS:
        return int(_compare(_COMPARISONS[op], a, b))
    if op == 0x22:  # plus
        return make(t, a + b)
    if op == 0x1C:  # minus
        return make(t, a - b)
    if op == 0x1E:  # mul
        return make(t, a * b)
    if op == 0x1B:  # div
        if b == 0:
            raise TypedStackError("Division by zero")
        if t.kind == "float":
            return make(t, a / b)
        return make(t, abs(int(a)) // abs(int(b)) * (1 if (a < 0) == (b < 0) else -1))
    _integral(first)
    x, y = int(a), int(b)
    if op == 0x1D:  # mod
        if y == 0:
            raise TypedStackError("Division by zero")
        return make(t, x - y * (abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)))
    if op == 0x1A:  # and
        return make(t, x & y)
    if op == 0x21:  # or
        return make(t, x | y)
    if op == 0x27:  # xor
        return make(t, x ^ y)
    if op in (0x24, 0x25, 0x26):  # shl, shr (logical), shra (arithmetic)
        bits = 8 * t.size
        if y < 0 or y >= bits:
            return make(t, -1 if op == 0x26 and x < 0 else 0)
        if op == 0x24:
            return make(t, x << y)
        unsigned = x & ((1 << bits) - 1)
        return make(t, (x >> y) if op == 0x26 else (unsigned >> y))
    raise TypedStackError(f"unsupported DWARF operation {op:#x} on a typed value")


def _number(entry: Entry) -> int | float:
    if not isinstance(entry, Typed):
        value = entry & MASK64
        return value - (1 << 64) if value >> 63 else value
    t, data = entry.type, entry.data
    if t.kind == "float":
        fmt = _FLOAT_FORMATS.get(t.size)
        if fmt is None:
            raise TypedStackError(f"a {t.size}-byte float on the DWARF stack is not supported")
        return float(struct.unpack(fmt, data)[0])
    return int.from_bytes(data, "little", signed=t.kind == "signed")


def _integral(entry: Entry) -> BaseType:
    t = type_of(entry)
    if t.kind == "float":
        raise TypedStackError("integral type expected in DWARF expression")
    return t


def _compare(name: str, a: int | float, b: int | float) -> bool:
    if name == "eq":
        return a == b
    if name == "ne":
        return a != b
    if name == "lt":
        return a < b
    if name == "le":
        return a <= b
    if name == "gt":
        return a > b
    return a >= b
