"""Calls into a Rust program (`twice(5)`, `mk(1, 2)`, `p.norm()`) by the ABI rustc gives
its own functions on x86-64, which is not C's for values passed or returned by value.

rustc lowers each value by its layout (rustc_target's fn_abi_adjust_for_abi, checked
against rustc 1.95's code): a scalar (an integer, float, bool, char, pointer or
reference, a C-like enum, a struct wrapping one) in a register of its own; a scalar pair
(`Point { x: i32, y: i32 }`, `&str`, `Option<i32>`'s tag and value) as two scalars, each
in a register of its own kind, returned in rax/rdx or xmm0/xmm1 (C packs `{i32, i32}`
into one register: gdb calls Rust functions as C's and reads `mk(1, 2)` as
`{x: 1, y: 0}`); any other value of at most 8 bytes as an integer in one register; a
larger one by address, the caller's copy (arguments) or its buffer (a result, its
address in rdi). Which of these a type is follows from its fields' scalars as the DWARF
lays them out (an enum's tag and its variants' fields; variants whose fields differ at
one place make no pair: rustc's common primitive).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from aliceserver.debuggers.symbols.dwarf.expr.calls import FunctionCaller
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    EnumType,
    FunctionType,
    Member,
    PointerType,
    ReferenceType,
    StructType,
    Type,
    VoidType,
    strip,
    type_name,
)
from aliceserver.debuggers.symbols.dwarf.values import Value

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.expr.evaluate import Evaluator

_MAX_DEPTH = 32
_WORD = 8
_U64 = BaseType("u64", 8, Encoding.UNSIGNED)
_F64 = BaseType("f64", 8, Encoding.FLOAT)


@dataclass(frozen=True, slots=True)
class Scalar:
    offset: int
    type: Type


def scalars(t: Type, base: int = 0, depth: int = 0) -> list[Scalar] | None:
    """The scalars of a value of type `t` by offset (zero-sized parts have none); None
    where its layout is no plain arrangement of scalars (a union, an array of values, an
    enum whose variants hold different scalars at one offset)."""
    t = strip(t)
    if depth > _MAX_DEPTH:
        return None
    if t.size == 0:
        return []
    if isinstance(t, (BaseType, PointerType, ReferenceType, EnumType)):
        return [Scalar(base, t)]
    if isinstance(t, ArrayType):
        return None
    if not isinstance(t, StructType) or t.keyword == "union":
        return None
    found: list[Scalar] = []
    for member in t.members:
        if member.offset is None or member.bit_size:
            return None
        inner = scalars(member.type, base + member.offset, depth + 1)
        if inner is None:
            return None
        found += inner
    variants = t.variants
    if variants is None:
        return found
    tag = variants.discriminant  # (a niche's lies inside a variant's scalar: the same offset)
    if tag is not None and tag.offset is not None and isinstance(strip(tag.type), (BaseType, EnumType)):
        found.append(Scalar(base + tag.offset, strip(tag.type)))
    elif tag is not None:
        return None
    for _value, variant in variants.variants:
        if variant.offset is None:
            return None
        inner = scalars(variant.type, base + variant.offset, depth + 1)
        if inner is None:
            return None
        found += inner
    return _merged(found)


def _merged(found: list[Scalar]) -> list[Scalar] | None:
    """One scalar per offset; None where two at one offset differ (no common layout)."""
    by_offset: dict[int, Scalar] = {}
    for scalar in found:
        seen = by_offset.get(scalar.offset)
        if seen is None:
            by_offset[scalar.offset] = scalar
        elif seen.type.size != scalar.type.size or _is_float(seen.type) != _is_float(scalar.type):
            return None
    return [by_offset[offset] for offset in sorted(by_offset)]


def _is_float(t: Type) -> bool:
    t = strip(t)
    return isinstance(t, BaseType) and t.encoding is Encoding.FLOAT


def _align_up(value: int, to: int) -> int:
    return (value + to - 1) // to * to if to else value


def lowered(t: Type) -> list[Scalar] | None:
    """rustc's passing of a by-value `t`: its one scalar, its scalar pair, or None for a
    value passed whole (at most 8 bytes: an integer register; more: by address)."""
    found = scalars(t)
    size = strip(t).size
    if found is None or not found:
        return None
    if len(found) == 1 and found[0].offset == 0 and found[0].type.size == size:
        return found
    if len(found) == 2:
        first, second = found
        a, b = first.type.size, second.type.size
        if (first.offset == 0 and second.offset == _align_up(a, b)
                and size == _align_up(second.offset + b, max(a, b))):  # fmt: skip
            return found
    return None


def _is_aggregate(t: Type) -> bool:
    return isinstance(strip(t), (StructType, ArrayType))



def _slot(scalar: Scalar) -> Type:
    """A register's worth for one scalar of a pair: its own kind, 8 bytes."""
    return _F64 if _is_float(scalar.type) else _U64


def _pair_type(pair: list[Scalar]) -> StructType:
    """What C's ABI returns in the registers rustc returns a scalar pair in: a 16-byte
    struct of two 8-byte halves of the pair's kinds (rax/rdx, xmm0/xmm1, or one of each)."""
    t = StructType("struct", None, 16)
    t.members = [Member("a", _slot(pair[0]), 0), Member("b", _slot(pair[1]), 8)]
    return t


def _word(size: int) -> Type:
    """An integer of `size` bytes (at most 8), as rustc casts a small value to one."""
    return BaseType(f"u{8 * size}", size, Encoding.UNSIGNED) if size in (1, 2, 4, 8) else _U64


def _in_memory_return(size: int) -> StructType:
    """A type C's ABI returns through a caller's buffer (over 16 bytes) of at least `size`."""
    return StructType("struct", None, max(size, 24))


def arguments(ev: Evaluator, caller: FunctionCaller, value: Value, param: Type) -> list[tuple[Type, bytes]]:
    """One by-value Rust argument as the registers and stack take it."""
    if not _is_aggregate(param):
        from aliceserver.debuggers.symbols.dwarf.expr.calls import argument_for

        return [argument_for(ev, caller, value, param)]
    if type_name(strip(value.type)) != type_name(strip(param)) or strip(value.type).size != strip(param).size:
        raise EvaluationError("Invalid cast.")
    data = value.data()
    parts = lowered(param)
    if parts is not None:
        return [(s.type, data[s.offset : s.offset + s.type.size]) for s in parts]
    if len(data) <= _WORD:
        return [(_word(len(data)), data)]
    address = caller.allocate(data)  # by address: the caller's copy, as rustc passes it
    return [(PointerType(param), address.to_bytes(8, "little"))]


def call(ev: Evaluator, caller: FunctionCaller, name: str, address: int, ftype: FunctionType,
         values: list[Value]) -> Value:  # fmt: skip
    """Call a Rust function; its return value (`()` for none)."""
    params = ftype.params
    if len(values) < len(params):
        raise EvaluationError("Too few arguments in function call.")
    passed: list[tuple[Type, bytes]] = []
    for value, param in zip(values, params, strict=False):  # more arguments: not passed (gdb's are
        # passed and never read)
        passed += arguments(ev, caller, value, param)
    returns = ftype.return_type
    if isinstance(strip(returns), VoidType) or strip(returns).size == 0:
        caller.call(name, address, passed, returns)
        return ev.unit() if hasattr(ev, "unit") else Value.of_bytes(returns, b"", ev.ctx)
    if not _is_aggregate(returns):
        return Value.of_bytes(returns, caller.call(name, address, passed, returns), ev.ctx)
    size = strip(returns).size
    parts = lowered(returns)
    if parts is not None and len(parts) == 1:
        raw = caller.call(name, address, passed, parts[0].type)
        return Value.of_bytes(returns, raw[: parts[0].type.size].ljust(size, b"\0"), ev.ctx)
    if parts is not None:
        raw = caller.call(name, address, passed, _pair_type(parts))
        data = bytearray(size)
        for half, scalar in enumerate(parts):
            data[scalar.offset : scalar.offset + scalar.type.size] = raw[8 * half : 8 * half + scalar.type.size]
        return Value.of_bytes(returns, bytes(data), ev.ctx)
    if size <= _WORD:
        raw = caller.call(name, address, passed, _word(size) if size in (1, 2, 4, 8) else _U64)
        return Value.of_bytes(returns, raw[:size], ev.ctx)
    raw = caller.call(name, address, passed, _in_memory_return(size))
    return Value.of_bytes(returns, raw[:size], ev.ctx)
