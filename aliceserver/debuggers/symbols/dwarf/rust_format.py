"""Rust values as gdb prints them without pretty printers (rust-lang.c's value printer):
`r::Point {x: 1, y: 2}`, `(1, 2)`, `r::Pair (1, 2)`, `r::Shape::Rect{w: 2, h: 3}`,
`core::option::Option<i32>::Some(5)`, `[1, 2, 3]`, `&[i32] [1, 2]`, `"text"` for `&str`,
`97 'a'` for a char, `()` for the unit, pointers as bare addresses.

Only what differs from C is here: scalars, enums without data and /FMT go through
format.py's C printer, which calls `rust_value` first for types from Rust units (and
imports this module only then)."""

from __future__ import annotations

from typing import Protocol

from aliceserver.debuggers.symbols.dwarf.format import FormatOptions
from aliceserver.debuggers.symbols.dwarf.literals import string_literal
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError, MemoryLoc
from aliceserver.debuggers.symbols.dwarf.rust_types import (
    BYTE,
    is_slice,
    is_tuple,
    is_tuple_struct,
    is_unit,
    rust_type_name,
)
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    FunctionType,
    PointerType,
    StructType,
    Type,
    strip,
)
from aliceserver.debuggers.symbols.dwarf.values import MASK64, Value, read


class Formatter(Protocol):
    """The part of format.py's printer this module calls back into."""

    @property
    def opts(self) -> FormatOptions: ...

    def value(self, value: Value, depth: int) -> str: ...

    def address(self, address: int) -> str: ...


def rust_value(out: Formatter, value: Value, depth: int) -> str | None:
    """The text of a Rust value, or None where gdb's Rust printer does what C's does."""
    t = strip(value.type)
    if isinstance(t, StructType):
        if depth >= out.opts.max_depth:
            return "{...}"
        if t.variants is not None and not t.members:
            return _enum(out, value, t, depth)
        if is_slice(t):
            return _slice(out, value, t, depth)
        return _struct(out, value, t, depth)
    if isinstance(t, ArrayType):
        if t.element is BYTE:  # a byte string literal (gdb's TYPE_CODE_STRING)
            return "b" + string_literal(value.data(), out.opts.repeat_threshold)
        return _array(out, value, t, t.count or 0, depth)
    if isinstance(t, BaseType):
        if is_unit(t):
            return "()"
        if out.opts.fmt is None and t.encoding == Encoding.UTF and t.size == 4:
            code = value.as_int() & 0xFFFFFFFF
            return f"{code} '{rust_char(code)}'"
        return None
    if isinstance(t, PointerType) and out.opts.fmt is None:
        address = value.as_int() & MASK64
        target = strip(t.target)
        if isinstance(target, FunctionType):
            return None
        if isinstance(target, ArrayType) and _is_u8(target.element) and target.count:
            data = _read_upto(value, address, min(target.count, out.opts.max_elements))
            text = string_literal(data, out.opts.repeat_threshold) if data is not None else "<error>"
            return f"{out.address(address)} b{text}"
        return out.address(address)
    return None


def rust_char(code: int) -> str:
    """rust_language::emitchar for a `char` quoted by `'`."""
    if code in (0x5C, 0x27):
        return "\\" + chr(code)
    special = {10: "\\n", 13: "\\r", 9: "\\t", 0: "\\0"}.get(code)
    if special is not None:
        return special
    if 32 <= code <= 126:
        return chr(code)
    return f"\\x{code:02x}" if code <= 255 else f"\\u{{{code:06x}}}"


def _is_u8(t: Type) -> bool:
    t = strip(t)
    return isinstance(t, BaseType) and t.size == 1 and t.encoding in (
        Encoding.UNSIGNED,
        Encoding.UNSIGNED_CHAR,
    )


def _read_upto(value: Value, address: int, size: int) -> bytes | None:
    try:
        return read(value.ctx, address, size) if size > 0 else b""
    except EvaluationError:
        return None


def _struct(out: Formatter, value: Value, t: StructType, depth: int) -> str:
    tuple_like = is_tuple(t)
    positional = tuple_like or is_tuple_struct(t)
    head = ""
    if not tuple_like:
        head = t.tag or ""
        if not t.members:
            return head
        if t.tag is not None:
            head += " "
    parts = []
    for member in t.members:
        try:
            text = out.value(value.member_value(member), depth + 1)
        except EvaluationError as exc:
            text = f"<error: {exc}>"
        parts.append(text if positional else f"{member.name}: {text}")
    inner = ", ".join(parts)
    return head + (f"({inner})" if positional else f"{{{inner}}}")


def _enum(out: Formatter, value: Value, t: StructType, depth: int) -> str:
    part = t.variants
    assert part is not None
    if not part.variants:
        return f"{t.tag} {{<No data fields>}}"
    discr = None
    if part.discriminant is not None:
        discr = value.member_value(part.discriminant).as_int()
    member = part.active(discr)
    if member is None:
        raise EvaluationError("Could not find active enum variant")
    inner = value.member_value(member)
    fields = strip(member.type)
    if not isinstance(fields, StructType):
        return member.name or "?"
    name = fields.tag or member.name or "?"
    if not fields.members:
        return name
    positional = is_tuple_struct(fields)
    parts = []
    for field in fields.members:
        text = out.value(inner.member_value(field), depth + 1)
        parts.append(text if positional else f"{field.name}: {text}")
    joined = ", ".join(parts)
    return f"{name}({joined})" if positional else f"{name}{{{joined}}}"


def _slice(out: Formatter, value: Value, t: StructType, depth: int) -> str:
    fields = {m.name: m for m in t.members}
    pointer = value.member_value(fields["data_ptr"])
    length = value.member_value(fields["length"]).as_int()
    address = pointer.as_int() & MASK64
    pointer_type = strip(pointer.type)
    element = pointer_type.target if isinstance(pointer_type, PointerType) else pointer.type
    if t.tag == "&str":
        shown = min(length, out.opts.max_elements)
        data = _read_upto(value, address, shown)
        if data is None:
            return f"<error: Cannot access memory at address {address:#x}>"
        return string_literal(data, out.opts.repeat_threshold) + ("..." if length > shown else "")
    prefix = f"{rust_type_name(value.type)} "
    if length <= 0:
        return prefix + "[]"
    array = ArrayType(element, length)
    array.rust = True
    return prefix + _array(out, Value(array, MemoryLoc(address), value.ctx), array, length, depth)


def _array(out: Formatter, value: Value, t: ArrayType, count: int, depth: int) -> str:
    """gdb's generic array printing with Rust's brackets: runs over `print repeats` as
    `x <repeats N times>`, `...` after `print elements` (elements read one by one, so a
    slice with a wild length reads no more than it shows)."""
    if count == 0:
        return "[]"
    if depth >= out.opts.max_depth:
        return "[...]"
    limit, threshold = out.opts.max_elements, out.opts.repeat_threshold
    parts: list[str] = []
    printed = i = 0
    while i < count:
        if printed >= limit:
            return "[" + ", ".join(parts) + "...]"
        element = value.element(i)
        key = _bytes(element)
        run = 1
        if key is not None and t.element.size:
            while i + run < count and run <= threshold and _bytes(value.element(i + run)) == key:
                run += 1
            if run > threshold:  # the whole run, now that it is long enough to fold
                while i + run < count and _bytes(value.element(i + run)) == key:
                    run += 1
        text = out.value(element, depth + 1)
        if run > threshold:
            parts.append(f"{text} <repeats {run} times>")
            printed += threshold
        else:
            parts.append(text)
            printed += 1
            run = 1
        i += run
    return "[" + ", ".join(parts) + "]"


def _bytes(value: Value) -> bytes | None:
    try:
        return value.data()
    except EvaluationError:
        return None
