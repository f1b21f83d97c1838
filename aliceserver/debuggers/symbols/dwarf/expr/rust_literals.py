"""Rust's literals of aggregates in expressions, as gdb's Rust parser makes them: arrays
(`[1, 2, 3]`, `[0; 4]`: every element as big as the first), structs (`Point { x: 1, y: 2 }`,
`Point { x: 1, ..p }`: fields not named are zero here, where gdb's are whatever the
program's malloc gave) and tuple structs (`Meters(2.0)`). gdb builds a struct in the
program's memory, so it asks for a live program (rust_eval.py asks too); it is built
aside here, the same bytes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.debuggers.symbols.dwarf.expr.convert import cast
from aliceserver.debuggers.symbols.dwarf.expr.dollars import MAX_VALUE_SIZE
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
from aliceserver.debuggers.symbols.dwarf.rust_types import is_tuple_struct
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    ReferenceType,
    StructType,
    Type,
    strip,
)
from aliceserver.debuggers.symbols.dwarf.values import Value

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.expr.evaluate import Evaluator


def array(ev: Evaluator, elements: list[Value]) -> Value:
    """gdb's value_array, typed as Rust's `[T; N]`."""
    if not elements:
        raise EvaluationError("bad array bounds (0, -1)")
    elements = [ev.target(e) if isinstance(strip(e.type), ReferenceType) else e for e in elements]
    first = elements[0].type
    if any(element.type.size != first.size for element in elements):
        raise EvaluationError("array elements must all be the same size")
    size = first.size * len(elements)
    if size > MAX_VALUE_SIZE:
        raise EvaluationError(f"value requires {size} bytes, which is more than max-value-size")
    t = ArrayType(first, len(elements))
    t.rust = True
    return Value.of_bytes(t, b"".join(element.data() for element in elements), ev.ctx)


def struct(ev: Evaluator, t: StructType, fields: list[tuple[str, Value]], base: Value | None) -> Value:
    """`T { name: value, ..base }`: each field converted to its member's type."""
    if base is not None and strip(base.type) is not t and getattr(strip(base.type), "tag", None) != t.tag:
        raise EvaluationError("Invalid cast.")
    data = bytearray(base.data() if base is not None else bytes(t.size))
    members = {member.name: member for member in t.members}
    for name, value in fields:
        member = members.get(name)
        if member is None or member.offset is None:
            raise EvaluationError(f"There is no member named {name}.")
        data[member.offset : member.offset + member.type.size] = _as(ev, value, member.type)
    return Value.of_bytes(t, bytes(data), ev.ctx)


def tuple_struct(ev: Evaluator, t: Type, args: list[Value]) -> Value:
    """`T(a, b)`: a tuple struct's fields `__0`, `__1`... in order."""
    s = strip(t)
    if not isinstance(s, StructType) or not is_tuple_struct(s):
        raise EvaluationError("Attempt to use a type name as an expression")
    if len(args) != len(s.members):
        raise EvaluationError(f"Wrong number of arguments to {s.tag}: {len(args)} for {len(s.members)}")
    return struct(ev, s, [(f"__{i}", arg) for i, arg in enumerate(args)], None)


def _as(ev: Evaluator, value: Value, t: Type) -> bytes:
    if isinstance(strip(t), (StructType, ArrayType)):
        if strip(value.type).size != strip(t).size:
            raise EvaluationError("Invalid cast.")
        return value.data()
    return cast(value, t, ev.builtins).data()
