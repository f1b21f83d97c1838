"""The binary operators of the DWARF expression stack machine, shared by the location
evaluator (locexpr.py) and the CFI evaluator (unwind.py). Values are 64-bit unsigned;
division by zero raises ZeroDivisionError, which each evaluator reports its own way."""

from __future__ import annotations

from types import MappingProxyType
from typing import Callable, Mapping

MASK64 = (1 << 64) - 1


def to_signed(value: int) -> int:
    value &= MASK64
    return value - (1 << 64) if value >> 63 else value


def _div(a: int, b: int) -> int:
    if b == 0:
        raise ZeroDivisionError
    sa, sb = to_signed(a), to_signed(b)
    quotient = abs(sa) // abs(sb)
    return quotient if (sa < 0) == (sb < 0) else -quotient


def _mod(a: int, b: int) -> int:
    if b == 0:
        raise ZeroDivisionError
    return a % b


BINARY_OPS: Mapping[int, Callable[[int, int], int]] = MappingProxyType(
    {
        0x1A: lambda a, b: a & b,  # DW_OP_and
        0x1B: _div,  # DW_OP_div (signed)
        0x1C: lambda a, b: a - b,  # DW_OP_minus
        0x1D: _mod,  # DW_OP_mod
        0x1E: lambda a, b: a * b,  # DW_OP_mul
        0x21: lambda a, b: a | b,  # DW_OP_or
        0x22: lambda a, b: a + b,  # DW_OP_plus
        0x24: lambda a, b: a << b if b < 64 else 0,  # DW_OP_shl
        0x25: lambda a, b: a >> b if b < 64 else 0,  # DW_OP_shr
        0x26: lambda a, b: to_signed(a) >> min(b, 63),  # DW_OP_shra
        0x27: lambda a, b: a ^ b,  # DW_OP_xor
        0x29: lambda a, b: int(a == b),  # DW_OP_eq
        0x2A: lambda a, b: int(to_signed(a) >= to_signed(b)),  # DW_OP_ge
        0x2B: lambda a, b: int(to_signed(a) > to_signed(b)),  # DW_OP_gt
        0x2C: lambda a, b: int(to_signed(a) <= to_signed(b)),  # DW_OP_le
        0x2D: lambda a, b: int(to_signed(a) < to_signed(b)),  # DW_OP_lt
        0x2E: lambda a, b: int(a != b),  # DW_OP_ne
    }
)
