"""Typed DWARF stack values (DW_OP_regval_type, const_type, convert...) in the forms gcc -O2
writes for float and double values in xmm registers, on hand-assembled bytes."""

from __future__ import annotations

import struct

import pytest

from aliceserver.debuggers.symbols.dwarf.locexpr import (
    EvaluationError,
    ExprEnv,
    ImplicitLoc,
    evaluate,
)
from aliceserver.debuggers.symbols.dwarf.typedstack import BaseType, Entry, Typed
from tests.unit.symbols.dwarf_values.test_locexpr import Frame, uleb

DOUBLE, FLOAT, INT = 0x2A, 0x31, 0x38  # CU offsets of the base types the expressions name
TYPES = {DOUBLE: BaseType("float", 8), FLOAT: BaseType("float", 4), INT: BaseType("signed", 4)}
XMM0, XMM2 = 17, 19


def _frame() -> Frame:
    frame = Frame()
    # xmm registers are 16 bytes: a double in the low 8, something else above it
    frame.regs[XMM0] = int.from_bytes(struct.pack("<dd", -3.75, 99.0), "little")
    frame.regs[XMM2] = int.from_bytes(struct.pack("<dd", 0.5, -1.0), "little")
    return frame


def _value(expr: bytes, entry: Entry | None = None) -> ImplicitLoc:
    env = ExprEnv(base_type=TYPES.__getitem__, entry_value=None if entry is None else (lambda block: entry))
    loc = evaluate(expr, _frame(), env)  # type: ignore[arg-type]
    assert isinstance(loc, ImplicitLoc)
    return loc


def regval(regno: int, type_offset: int) -> bytes:
    return b"\xa5" + uleb(regno) + uleb(type_offset)


def const(type_offset: int, data: bytes) -> bytes:
    return b"\xa4" + uleb(type_offset) + bytes([len(data)]) + data


def test_regval_type_reads_the_low_bytes_of_an_xmm_register() -> None:
    loc = _value(regval(XMM0, DOUBLE) + b"\x9f")
    assert loc.data == struct.pack("<d", -3.75) and loc.typed == TYPES[DOUBLE]
    assert _value(regval(XMM2, FLOAT) + b"\x9f").data == struct.pack("<d", 0.5)[:4]


def test_float_arithmetic_on_typed_values() -> None:
    # gcc: entry_value(xmm0) * 3.0 + xmm2 as doubles (a parameter changed in place)
    expr = b"\xa3\x03" + regval(XMM0, DOUBLE) + const(DOUBLE, struct.pack("<d", 3.0)) + b"\x1e"
    expr += regval(XMM2, DOUBLE) + b"\x22\x9f"
    entry = Typed(TYPES[DOUBLE], struct.pack("<d", -3.75))
    assert struct.unpack("<d", _value(expr, entry).data)[0] == -3.75 * 3.0 + 0.5
    negated = regval(XMM0, DOUBLE) + b"\x1f\x9f"
    assert struct.unpack("<d", _value(negated).data)[0] == 3.75
    halved = regval(XMM0, DOUBLE) + const(DOUBLE, struct.pack("<d", 2.0)) + b"\x1b\x9f"
    assert struct.unpack("<d", _value(halved).data)[0] == -1.875


def test_convert_and_reinterpret() -> None:
    to_float = regval(XMM0, DOUBLE) + b"\xa8" + uleb(FLOAT) + b"\x9f"  # (float)x
    loc = _value(to_float)
    assert loc.data == struct.pack("<f", -3.75) and loc.typed == TYPES[FLOAT]
    to_int = regval(XMM0, DOUBLE) + b"\xa8" + uleb(INT) + b"\x9f"  # truncates toward zero
    assert _value(to_int).data == struct.pack("<i", -3)
    generic = regval(XMM0, DOUBLE) + b"\xa8\x00\x9f"  # type 0: the generic integer
    assert _value(generic).data == struct.pack("<q", -3) and _value(generic).typed is None
    bits = regval(XMM0, DOUBLE) + b"\xa9\x00\x9f"  # the same 8 bytes as an integer
    assert _value(bits).data == struct.pack("<d", -3.75)


def test_comparisons_give_the_generic_type() -> None:
    less = regval(XMM0, DOUBLE) + regval(XMM2, DOUBLE) + b"\x2d\x9f"  # -3.75 < 0.5
    loc = _value(less)
    assert loc.typed is None and int.from_bytes(loc.data, "little") == 1


def test_what_gdb_refuses() -> None:
    env = ExprEnv(base_type=TYPES.__getitem__)
    with pytest.raises(EvaluationError, match="Incompatible types on DWARF stack"):
        evaluate(regval(XMM0, DOUBLE) + regval(XMM2, FLOAT) + b"\x22\x9f", _frame(), env)  # type: ignore[arg-type]
    with pytest.raises(EvaluationError, match="integral type expected"):
        evaluate(regval(XMM0, DOUBLE) + b"\x06", _frame(), env)  # type: ignore[arg-type]  # deref a double
    with pytest.raises(EvaluationError, match="different sizes"):
        evaluate(const(DOUBLE, b"\x00" * 4) + b"\x9f", _frame(), env)  # type: ignore[arg-type]
