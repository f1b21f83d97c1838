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
from aliceserver.debuggers.symbols.dwarf.expr.unplaced import array_literal
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
from aliceserver.debuggers.symbols.dwarf.rust_types import BYTE, is_tuple_struct
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    Member,
    PointerType,
    StructType,
    Type,
    strip,
)
from aliceserver.debuggers.symbols.dwarf.values import Value

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.expr.evaluate import Evaluator


def array(ev: Evaluator, elements: list[Value]) -> Value:
    """gdb's value_array, typed as Rust's `[T; N]` (`[0; 100000]` within max-value-size)."""
    size = elements[0].type.size * len(elements) if elements else 0
    if size > MAX_VALUE_SIZE:
        raise EvaluationError(f"value requires {size} bytes, which is more than max-value-size")
    made = array_literal(ev, elements)
    made.type.rust = True
    return made


def byte_string(ev: Evaluator, data: bytes) -> Value:
    """`b"ab"`: its bytes, not in the program."""
    if not data:
        raise EvaluationError("bad array bounds (0, -1)")
    t = ArrayType(BYTE, len(data))
    t.rust = True
    return Value.of_bytes(t, data, ev.ctx)


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


_RANGES = ("std::ops::Range", "std::ops::RangeInclusive", "std::ops::RangeFrom", "std::ops::RangeTo",
           "std::ops::RangeToInclusive", "std::ops::RangeFull")  # fmt: skip


def range_value(ev: Evaluator, low: Value | None, high: Value | None, inclusive: bool) -> Value:
    """gdb's rust_range: a struct of the bounds given, named as Rust's range types."""
    if low is None:
        name = "std::ops::RangeFull" if high is None else (
            "std::ops::RangeToInclusive" if inclusive else "std::ops::RangeTo")  # fmt: skip
    elif high is None:
        name = "std::ops::RangeFrom"
    else:
        if strip(low.type).size != strip(high.type).size or str(strip(low.type)) != str(strip(high.type)):
            raise EvaluationError("Range expression with different types")
        name = "std::ops::RangeInclusive" if inclusive else "std::ops::Range"
    bounds = [(field, value) for field, value in (("start", low), ("end", high)) if value is not None]
    t = _composite(name, [(field, value.type) for field, value in bounds])
    return Value.of_bytes(t, b"".join(value.data() for _field, value in bounds), ev.ctx)


def is_range(value: Value) -> bool:
    t = strip(value.type)
    return isinstance(t, StructType) and t.tag in _RANGES


def range_bounds(value: Value) -> tuple[int | None, int | None]:
    """(low, high) of a range value, high exclusive; None where the range leaves it open."""
    t = strip(value.type)
    assert isinstance(t, StructType)
    fields = {m.name: m for m in t.members}
    low = value.member_value(fields["start"]).as_int() if "start" in fields else None
    high = value.member_value(fields["end"]).as_int() if "end" in fields else None
    if high is not None and t.tag in ("std::ops::RangeInclusive", "std::ops::RangeToInclusive"):
        high += 1
    return low, high


def slice_value(ev: Evaluator, name: str, element: Type, usize: Type, address: int, length: int) -> Value:
    """A slice `name` (`&[*gdb*]`, gdb's name for one it makes) of `length` elements at `address`."""
    pointer = PointerType(element)
    pointer.rust = True
    t = _composite(name, [("data_ptr", pointer), ("length", usize)])
    return Value.of_bytes(t, address.to_bytes(8, "little") + length.to_bytes(8, "little"), ev.ctx)


def _composite(name: str, fields: list[tuple[str, Type]]) -> StructType:
    """gdb's rust_composite_type: a struct of the fields in order, each aligned to its size."""
    members, offset = [], 0
    for field_name, field_type in fields:
        size = strip(field_type).size
        offset = (offset + size - 1) // size * size if size else offset
        members.append(Member(field_name, field_type, offset))
        offset += size
    align = max((strip(f).size for _n, f in fields), default=1) or 1
    t = StructType("struct", name, (offset + align - 1) // align * align, cplus=True)  # (as a Rust unit's:
    t.members = members  # the printers take it)
    t.rust = True
    return t


def _as(ev: Evaluator, value: Value, t: Type) -> bytes:
    if isinstance(strip(t), (StructType, ArrayType)):
        if strip(value.type).size != strip(t).size:
            raise EvaluationError("Invalid cast.")
        return value.data()
    return cast(value, t, ev.builtins).data()
