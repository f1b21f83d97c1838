"""C's binary operators over values, as gdb evaluates them: arithmetic after the usual
conversions, pointer arithmetic, comparison, and assignment (`=`, `+=`...) through a
value's location. The evaluator passes itself: its subclasses (Rust's) change arith."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.debuggers.symbols.dwarf.expr import decimal_ops
from aliceserver.debuggers.symbols.dwarf.expr.convert import (
    cast,
    common_type,
    is_arith,
    is_floating,
    make,
    promote,
    to_number,
)
from aliceserver.debuggers.symbols.dwarf.expr.dollars import store as convenience_store
from aliceserver.debuggers.symbols.dwarf.expr.unplaced import fitted, same_type, value_cast
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError, RegisterLoc
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    PointerType,
    ReferenceType,
    StructType,
    Type,
    is_scalar_signed,
    strip,
)
from aliceserver.debuggers.symbols.dwarf.values import Value

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.expr.evaluate import Evaluator

COMPARE = frozenset(("==", "!=", "<", ">", "<=", ">="))
INTEGER_ONLY = "Integer-only operation on floating point number."  # gdb's target_float_binop
_NAN = float("nan")
_INVALID_COMPARISON = {what: f"Invalid type combination in {what}." for what in ("equality test", "ordering comparison")}


def arith(ev: Evaluator, op: str, left: Value, right: Value) -> Value:
    left, right = ev.rvalue(left), ev.rvalue(right)
    lt, rt = strip(left.type), strip(right.type)
    called = _class_operator(ev, op, left, right)
    if called is not None:
        return called
    no_class_operator(op, lt, rt)
    lp, rp = isinstance(lt, PointerType), isinstance(rt, PointerType)
    if lp or rp:
        return pointer_arith(ev, op, left, right, lp, rp)
    if not is_arith(lt) or not is_arith(rt):
        if op in COMPARE:
            return ev.truth(_compare_bytes(op, left, right))
        raise EvaluationError("Argument to arithmetic operation not a number or boolean.")
    if decimal_ops.is_decimal(lt) or decimal_ops.is_decimal(rt):
        found = decimal_ops.arith(ev.builtins, op, left, right)
        return ev.truth(found) if isinstance(found, bool) else found
    if op in ("<<", ">>"):
        if is_floating(lt) or is_floating(rt):  # `1 >> 1.5`: gdb's floating-point path
            raise EvaluationError(INTEGER_ONLY)
        result_t = promote(lt, ev.builtins)
    else:
        result_t = common_type(lt, rt, ev.builtins)
    a, b = to_number(make(result_t, to_number(left), ev.ctx)), to_number(right)
    if op not in ("<<", ">>"):
        b = to_number(make(result_t, b, ev.ctx))
    if ev.type_only and op in ("/", "%") and b == 0:
        b = 1  # gdb divides by one: only the result's type is wanted
    if op in COMPARE:
        return ev.truth(compare(op, a, b))
    if op in ("<<", ">>") and not valid_shift(ev, op, int(b), is_scalar_signed(rt), 8 * result_t.size):
        return make(result_t, 0, ev.ctx)
    return make(result_t, apply(op, a, b, is_floating(result_t)), ev.ctx)


def valid_shift(ev: Evaluator, op: str, count: int, signed: bool, width: int) -> bool:
    """gdb's check of a shift's count: a negative one or one past the result's width is
    warned about, and the result is zero."""
    side = "right" if op == ">>" else "left"
    if signed and count < 0:
        ev.warn(f"{side} shift count is negative")
        return False
    if count % (1 << 64) >= width:  # gdb's count is a ULONGEST
        ev.warn(f"{side} shift count >= width of type")
        return False
    return True


def _class_operator(ev: Evaluator, op: str, left: Value, right: Value) -> Value | None:
    """gdb's value_x_binop where the left operand is a C++ class: its `operator op`
    (BINOP_ASSIGN_MODIFY's `+=` too), called in the program; None where none is asked."""
    if not ev.symbols.cplus or not is_struct(left.type):
        return None
    from aliceserver.debuggers.symbols.dwarf.expr.cxxcalls import (
        call_binary_operator,  # it imports us
    )

    return call_binary_operator(ev, op, left, right)


def is_struct(t: Type) -> bool:
    """gdb's TYPE_CODE_STRUCT (a reference's referent): its operators are a class's, and
    a union's are not."""
    s = strip(t)
    s = strip(s.target) if isinstance(s, ReferenceType) else s
    return isinstance(s, StructType) and s.keyword != "union"


def no_class_operator(op: str, left: Type, right: Type) -> None:
    """gdb's errors for an operator on a struct in C (binop_user_defined_p, then
    value_x_binop): the left operand's class has no such operator, or it is no class."""
    if is_struct(left):
        raise EvaluationError(f"Structure has no component named operator{op}.")
    if is_struct(right):
        raise EvaluationError("Can't do that binary op on that type")


def _compare_bytes(op: str, left: Value, right: Value) -> bool:
    """gdb's value_equal and value_less past numbers and pointers: two values of one kind
    and size (unions) are equal when their bytes are; nothing else compares."""
    if op not in ("==", "!="):
        raise EvaluationError(_INVALID_COMPARISON["ordering comparison"])
    lt, rt = strip(left.type), strip(right.type)
    if type(lt) is not type(rt) or lt.size != rt.size:
        raise EvaluationError(_INVALID_COMPARISON["equality test"])
    return (left.data() == right.data()) == (op == "==")


def pointer_arith(ev: Evaluator, op: str, left: Value, right: Value, lp: bool, rp: bool) -> Value:
    if op in COMPARE:
        side = strip((right if lp else left).type)
        integral = is_arith(side) and not is_floating(side) and not decimal_ops.is_decimal(side)
        if not (lp and rp) and not integral:  # gdb compares a pointer with a pointer or an integer
            raise EvaluationError(_INVALID_COMPARISON["equality test" if op in ("==", "!=") else "ordering comparison"])
        a, b = to_number(left), to_number(right)
        return ev.truth(compare(op, a, b))
    if op == "+" and lp != rp:
        ptr, other = (left, right) if lp else (right, left)
        n = to_number(other)
        if isinstance(n, float):
            raise EvaluationError("Argument to arithmetic operation not a number or boolean.")
        return ev.pointer_add(ptr, n)
    if op == "-" and lp and not rp:
        n = to_number(right)
        if isinstance(n, float):
            raise EvaluationError("Argument to arithmetic operation not a number or boolean.")
        return ev.pointer_add(left, -n)
    if op == "-" and lp and rp:
        lt, rt = strip(left.type), strip(right.type)
        assert isinstance(lt, PointerType) and isinstance(rt, PointerType)
        size = strip(lt.target).size or 1
        if size != (strip(rt.target).size or 1):
            raise EvaluationError(
                "First argument of `-' is a pointer and second argument is neither\n"
                "an integer nor a pointer of the same type."
            )
        diff = left.as_int() - right.as_int()
        quotient = abs(diff) // size * (1 if diff >= 0 else -1)
        return Value.of_int(ev.builtins.of("long"), quotient, ev.ctx)
    if op in ("&", "|", "^", "%", "*", "/", "<<", ">>") or op == "+":
        raise EvaluationError("Argument to arithmetic operation not a number or boolean.")
    raise EvaluationError("Argument to arithmetic operation not a number or boolean.")


def store(ev: Evaluator, target: Value, op: str, value: Value) -> Value:
    """`target op value` for = += -= ...: written through target's location."""
    variable = convenience_store(ev, target, op, value)
    if variable is not None:
        return variable
    if isinstance(strip(target.type), ReferenceType):
        target = ev.target(target)
    if ev.type_only:  # gdb: the left side as it is, nothing written
        return target
    if op != "=":
        called = _class_operator(ev, op, target, value)  # a class's operator+=
        if called is not None:
            return called
        no_class_operator(op, target.type, value.type)
        value = ev.arith(op[:-1], target, value)
    if not target.is_lvalue:
        raise EvaluationError("Left operand of assignment is not an lvalue.")
    tt = strip(target.type)
    if isinstance(tt, (StructType, ArrayType)):
        if not same_type(value.type, tt):  # gdb's value_cast: read as tt where it is in memory
            value = value_cast(ev, value, target.type)
        data = value.data()
    else:
        source = strip(value.type)
        if isinstance(source, ArrayType) and not source.vector:  # its address (gdb's value_cast)
            value = value_cast(ev, value, target.type)
        converted = cast(value, target.type, ev.builtins)
        data = converted.data()
        if target.bit_size:  # the field's bits, unshifted (gdb's modify_field)
            data = fitted(ev, converted.as_int(), target.bit_size).to_bytes(target.byte_size, "little")
    target.assign_bytes(data)
    # The bytes written, in target's frame (an outer frame's $rax is frame 0's): a frame's
    # registers are a snapshot, read again they would be the old ones.
    written = target._data if isinstance(target.location, RegisterLoc) else None
    return Value(target.type, target.location, target.ctx, target.bit_offset, target.bit_size, _data=written)


def compare(op: str, a: int | float, b: int | float) -> bool:
    if op == "==":
        return a == b
    if op == "!=":
        return a != b
    if op == "<":
        return a < b
    if op == ">":
        return a > b
    if op == "<=":
        return a <= b
    return a >= b


def apply(op: str, a: int | float, b: int | float, floating: bool) -> int | float:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op in ("/", "%"):
        if floating and op == "%":  # gdb's floating-point path has no `%`, zero or not
            raise EvaluationError(INTEGER_ONLY)
        if b == 0:
            if floating and op == "/":  # IEEE: inf or nan, as gdb prints
                return -_NAN if a == 0 else (float("inf") if a > 0 else float("-inf"))  # x86's NaN: negative
            raise EvaluationError("Division by zero")
        if floating:
            return a / b
        assert isinstance(a, int) and isinstance(b, int)
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C truncates toward zero
        return q if op == "/" else a - q * b
    if floating:
        raise EvaluationError(INTEGER_ONLY)
    assert isinstance(a, int) and isinstance(b, int)
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    if op == "<<":
        return a << b if 0 <= b < 128 else 0
    if op == ">>":
        return a >> b if 0 <= b < 128 else (-1 if a < 0 else 0)
    raise EvaluationError(f"unsupported operator {op}")
