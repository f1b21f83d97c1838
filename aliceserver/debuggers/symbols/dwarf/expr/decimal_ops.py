"""C's operators over decimal floating point values (_Decimal32/64/128), as gdb's
value_binop and value_cast do them: exact decimal arithmetic rounded to the result's format,
which is the wider decimal type of the two (an integer operand converts to it); gdb refuses
to mix a decimal float with a binary one."""

from __future__ import annotations

import decimal
from decimal import Decimal

from aliceserver.debuggers.symbols.dwarf import decfloat
from aliceserver.debuggers.symbols.dwarf.expr.convert import Builtins, is_floating
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
from aliceserver.debuggers.symbols.dwarf.types import BaseType, Encoding, EnumType, Type, strip
from aliceserver.debuggers.symbols.dwarf.values import FrameContext, Value

_WORKING = decimal.Context(prec=80, Emax=10**6, Emin=-(10**6), traps=[])  # exact for 34-digit operands
_NAMES = {4: "_Decimal32", 8: "_Decimal64", 16: "_Decimal128"}


def is_decimal(t: Type) -> bool:
    s = strip(t)
    return isinstance(s, BaseType) and s.encoding == Encoding.DECIMAL_FLOAT and s.size in decfloat.SIZES


def literal(builtins: Builtins, digits: str, type_name: str, ctx: FrameContext) -> Value:
    t = builtins.of(type_name)
    return Value.of_bytes(t, decfloat.encode(Decimal(digits), t.size), ctx)


def number(value: Value) -> Decimal:
    """A decimal float's number, or an integer's (gdb's value_args_as_target_float)."""
    t = strip(value.type)
    if is_decimal(t):
        return decfloat.decode(value.data())
    if is_floating(t):
        raise EvaluationError("Mixing decimal floating types with other floating types is not allowed.")
    if isinstance(t, (BaseType, EnumType)):
        return Decimal(value.as_int())
    raise EvaluationError("Argument to arithmetic operation not a number or boolean.")


def make(t: Type, value: Decimal, ctx: FrameContext) -> Value:
    return Value.of_bytes(t, decfloat.encode(value, strip(t).size), ctx)


def negate(value: Value) -> Value:
    return make(value.type, _WORKING.minus(number(value)), value.ctx)


def cast(value: Value, target: Type) -> Value:
    """`(_Decimal32) 1`, `(int) 1.5df` (truncated toward zero, as C)."""
    ts = strip(target)
    if is_decimal(ts):
        source = strip(value.type)
        if is_floating(source):  # through its text, as gdb's target_float_convert (%.9g, %.17g)
            digits = {4: 9, 8: 17}.get(source.size, 21)
            return make(target, Decimal(f"{value.as_float():.{digits}g}"), value.ctx)
        return make(target, number(value), value.ctx)
    found = number(value)
    if is_floating(ts):
        return Value.of_float(target, float(found), value.ctx)
    if not found.is_finite():
        raise EvaluationError("Cannot convert value to integer: value is not a number")
    return Value.of_int(target, int(found), value.ctx)


def arith(builtins: Builtins, op: str, left: Value, right: Value) -> Value | bool:
    """`left op right` with a decimal float on either side: the value, or a comparison's truth."""
    a, b = number(left), number(right)
    sizes = [strip(v.type).size for v in (left, right) if is_decimal(v.type)]
    result_t = builtins.of(_NAMES[max(sizes)])
    comparisons = {"==": a == b, "!=": a != b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}
    if op in comparisons:
        return comparisons[op]
    if op == "+":
        found = _WORKING.add(a, b)
    elif op == "-":
        found = _WORKING.subtract(a, b)
    elif op == "*":
        found = _WORKING.multiply(a, b)
    elif op == "/":
        if a == 0 and b == 0:
            raise EvaluationError("Cannot perform operation: Division undefined")
        found = _WORKING.divide(a, b)
    else:
        raise EvaluationError("Operation not valid for decimal floating point number.")
    return make(result_t, found, left.ctx)
