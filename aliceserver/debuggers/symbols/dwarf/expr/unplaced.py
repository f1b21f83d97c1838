"""Values that live in no memory of the program, as gdb evaluates them: an array literal
(`{1, 2, 3}`, value_array, or the struct or array it is assigned to), one copied into the program where it is used by address
(value_coerce_to_target), and `{type} address` (UNOP_MEMVAL)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.debuggers.symbols.dwarf.expr import ast
from aliceserver.debuggers.symbols.dwarf.expr.calls import caller_of
from aliceserver.debuggers.symbols.dwarf.expr.classcast import c_cast
from aliceserver.debuggers.symbols.dwarf.expr.convert import decay
from aliceserver.debuggers.symbols.dwarf.expr.noprogram import NEEDS_TARGET, coerce_to_target
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError, MemoryLoc
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    PointerType,
    ReferenceType,
    StructType,
    Type,
    strip,
    type_name,
)
from aliceserver.debuggers.symbols.dwarf.values import Value

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.expr.evaluate import Evaluator


def in_target(ev: Evaluator, value: Value) -> Value:
    """gdb's value_coerce_to_target: an array that lives in no memory (a string or array
    literal, a convenience variable's) copied into the program (its malloc) where it is
    used by address; gdb's error without a thread to run that in."""
    coerce_to_target(ev.symbols, value)
    if not isinstance(strip(value.type), ArrayType) or isinstance(value.location, MemoryLoc):
        return value
    caller = caller_of(ev.symbols)
    if caller is None:
        raise EvaluationError(NEEDS_TARGET)
    if ev.type_only:  # nothing runs for whatis and ptype: somewhere, as gdb's value_zero
        return Value(value.type, MemoryLoc(0), ev.ctx, _data=value.data())
    return Value(value.type, MemoryLoc(caller.allocate(value.data())), ev.ctx)


def memory_at(ev: Evaluator, node: ast.MemoryAt) -> Value:
    """`{type} address` (gdb's value_at_lazy of value_as_address): an array or function
    operand stands for its address, a pointer or integer is one."""
    target = ev.resolve_type(node.type)
    operand = decay(ev.rvalue(ev.eval(node.address)), ev.builtins)
    address = c_cast(operand, ev.builtins.of("unsigned long"), ev.builtins, ev.classes).as_int()
    return ev.deref(Value.of_int(PointerType(target), address, ev.ctx))


def array_literal(ev: Evaluator, elements: list[Value]) -> Value:
    """`{a, b, c}` (gdb's value_array): the elements' bytes side by side, as an array of
    the first one's type; every element must be as big."""
    if not elements:
        raise EvaluationError("bad array bounds (0, -1)")
    elements = [ev.target(e) if isinstance(strip(e.type), ReferenceType) else e for e in elements]
    first = elements[0].type
    if any(element.type.size != first.size for element in elements):
        raise EvaluationError("array elements must all be the same size")
    data = b"".join(element.data() for element in elements)
    return Value.of_bytes(ArrayType(first, len(elements)), data, ev.ctx)


def typed_literal(ev: Evaluator, node: ast.ArrayLit, expect: Type) -> Value | None:
    """`{a, b, c}` where a struct or an array is wanted (assigned to, gdb's expect_type):
    that struct's fields or the array's elements in order, each converted to its type
    (a nested list to a nested struct), the rest zero. None for any other type."""
    t = strip(expect)
    if isinstance(t, StructType) and t.keyword != "union":
        return _struct_tuple(ev, node, expect, t)
    if isinstance(t, ArrayType) and t.count is not None:
        return _array_tuple(ev, node, expect, t)
    return None


def typed_string(ev: Evaluator, node: ast.StringLit, expect: Type) -> Value | None:
    """A C string where an array of integers is wanted (gdb's c_string_operation): its
    bytes (not widened: "ab" in an int array is one int) and a zero element after them,
    the rest zero. None for any other type, or a wide string."""
    t = strip(expect)
    element = strip(t.element) if isinstance(t, ArrayType) else None
    if node.char_type != "char" or not isinstance(t, ArrayType) or not isinstance(element, BaseType):
        return None
    if element.encoding in (Encoding.FLOAT, Encoding.BOOL) or t.count is None:
        return None
    size = element.size
    data = node.value + bytes(size)  # gdb's bytes as they are, and a terminating element
    if len(data) // size > t.count:
        raise EvaluationError("Too many array elements")
    return Value.of_bytes(expect, data.ljust(t.size, b"\0"), ev.ctx)


def value_cast(ev: Evaluator, value: Value, target: Type) -> Value:
    """gdb's value_cast in C: an array (not a vector) cast to anything but a reference
    stands for its address, a literal's copied into the program for it."""
    if value.type is target:  # a brace list made for the cast
        return value
    source, to = strip(value.type), strip(target)
    if isinstance(source, ArrayType) and not source.vector and not isinstance(to, ReferenceType):
        value = decay(in_target(ev, value), ev.builtins)
    return c_cast(value, target, ev.builtins, ev.classes)


def same_type(value_type: Type, t: Type) -> bool:
    """Whether a value of `value_type` is a `t` as it is (gdb's types from the one DIE: the
    same name, as `struct s` or `int [3]`, and size)."""
    v, s = strip(value_type), strip(t)
    return v is s or (type(v) is type(s) and v.size == s.size and type_name(v) == type_name(s))


def _converted(ev: Evaluator, element: ast.Expr, t: Type) -> Value:
    value = ev.eval_for(element, t)
    return value if same_type(value.type, t) else value_cast(ev, value, t)


def _struct_tuple(ev: Evaluator, node: ast.ArrayLit, expect: Type, t: StructType) -> Value:
    data = bytearray(t.size)
    members = t.members
    for index, element in enumerate(node.elements):
        if index >= len(members):
            raise EvaluationError("too many initializers")
        member = members[index]
        value = _converted(ev, element, member.type)
        offset = member.offset or 0
        if member.bit_size:  # gdb's modify_field over the bytes the field spans
            span = (member.bit_offset + member.bit_size + 7) // 8
            word = int.from_bytes(data[offset : offset + span], "little")
            mask = ((1 << member.bit_size) - 1) << member.bit_offset
            bits = fitted(ev, value.as_int(), member.bit_size) << member.bit_offset
            data[offset : offset + span] = ((word & ~mask) | bits).to_bytes(span, "little")
        else:
            size = strip(member.type).size
            data[offset : offset + size] = value.data()[:size]
    return Value.of_bytes(expect, bytes(data), ev.ctx)


def _array_tuple(ev: Evaluator, node: ast.ArrayLit, expect: Type, t: ArrayType) -> Value:
    data = bytearray(t.size)
    size = strip(t.element).size
    for index, element in enumerate(node.elements):
        value = _converted(ev, element, t.element)
        if index >= (t.count or 0):  # gdb evaluates the element first
            raise EvaluationError("Too many array elements")
        data[index * size : (index + 1) * size] = value.data()[:size]
    return Value.of_bytes(expect, bytes(data), ev.ctx)


def fitted(ev: Evaluator, value: int, bit_size: int) -> int:
    """A value stored in a bitfield `bit_size` wide, as gdb's modify_field: a negative one
    that fits loses its sign bits; one too big is warned about and truncated."""
    value = value - (1 << 64) if value >= 1 << 63 else value  # gdb's LONGEST
    mask = (1 << bit_size) - 1
    if (~value & ~(mask >> 1)) == 0:
        value &= mask
    if value & ~mask:
        ev.warn(f"Value does not fit in {bit_size} bits.")
        value &= mask
    return value
