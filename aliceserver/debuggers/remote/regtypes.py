"""The types of a stub's described registers, as gdb builds them from the target description
(target-descriptions.c): its predefined scalars, `int` sized by the register, and the
description's own vectors, unions and flags, for `$name` of a register no architecture table
knows (qemu's SVE z0-31, its system registers, its own v0-v31 union)."""

from __future__ import annotations

from collections.abc import Callable

from aliceserver.debuggers.remote.tdesc import TypeInfo
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    Member,
    PointerType,
    StructType,
    Type,
    TypedefType,
    VoidType,
)
from aliceserver.debuggers.symbols.dwarf.x86_registers import FlagsType, code_pointer

_FLOATS = {"ieee_half": 2, "ieee_single": 4, "ieee_double": 8, "bfloat16": 2, "i387_ext": 10}
# gdb's name for `int` of a register's size (tdesc_register_type's size shortcuts)
_INT_NAMES = {8: "char", 16: "short", 32: "int", 64: "long", 128: "int128_t"}


def scalar(name: str, bitsize: int) -> Type | None:
    """A predefined type of the descriptions (int8..uint128, code_ptr...), or None."""
    if name in ("int", "long"):
        return BaseType(_INT_NAMES.get(bitsize, "long"), bitsize // 8, Encoding.SIGNED)
    for prefix, encoding in (("uint", Encoding.UNSIGNED), ("int", Encoding.SIGNED)):
        bits = name[len(prefix) :]
        if name.startswith(prefix) and bits in ("8", "16", "32", "64", "128"):
            return BaseType(f"{name}_t", int(bits) // 8, encoding)
    if name == "code_ptr":
        return code_pointer()
    if name == "data_ptr":
        return PointerType(VoidType())
    if name in _FLOATS:
        shown = name if name in ("bfloat16", "i387_ext") else f"builtin_type_{name}"
        return BaseType("half" if name == "ieee_half" else shown, _FLOATS[name], Encoding.FLOAT)
    if name == "bool":
        return BaseType("bool", 1, Encoding.BOOL)
    return None


def register_type(types: dict[str, TypeInfo], name: str, bitsize: int) -> Type | None:
    """The type named `name` of a `bitsize`-bit register; None where the description uses
    something gdb builds otherwise (a struct) or names nothing it defines."""
    return _Builder(types).build(name, bitsize)


def type_class(types: dict[str, TypeInfo], name: str) -> str:
    """gdb's default register groups see a register's type as "float", "vector" (a
    description's union is one where a member is), or neither ("")."""
    if name in _FLOATS:
        return "float"
    info = types.get(name)
    if info is None:
        return ""
    if info.kind == "vector":
        return "vector"
    if info.kind == "union" and any(
        type_class(types, kind) == "vector" for _n, kind, _s, _e in info.fields
    ):
        return "vector"
    return ""


class _Builder:
    def __init__(self, types: dict[str, TypeInfo]) -> None:
        self.types = types
        self.depth = 0

    def build(self, name: str, bitsize: int) -> Type | None:
        found = scalar(name, bitsize)
        if found is not None:
            return found
        info = self.types.get(name)
        self.depth += 1
        try:
            if info is None or self.depth > 16:  # undefined, or defined through itself
                return None
            return _MAKERS.get(info.kind, _none)(self, name, info, bitsize)
        finally:
            self.depth -= 1


def _vector(builder: _Builder, name: str, info: TypeInfo, bitsize: int) -> Type | None:
    element = builder.build(info.element, 0)
    if element is None or info.count <= 0:
        return None
    return TypedefType(name, ArrayType(element, info.count, vector=True))


def _union(builder: _Builder, name: str, info: TypeInfo, bitsize: int) -> Type | None:
    members = []
    for field, kind, _start, _end in info.fields:
        member = builder.build(kind, bitsize)
        if member is None:
            return None
        members.append(Member(field, member, 0))
    union = StructType("union", name, max((m.type.size for m in members), default=0))
    union.members = members
    return union


def _flags(builder: _Builder, name: str, info: TypeInfo, bitsize: int) -> Type | None:
    # gdb prints a one-bit field by its name when set, a wider one as NAME=value
    if any(start < 0 or end < start and end != -1 for _field, _kind, start, end in info.fields):
        return None
    bits = tuple((start, field) for field, _kind, start, _end in info.fields)
    widths = tuple(max(end - start + 1, 1) for _field, _kind, start, end in info.fields)
    return FlagsType(name, info.size or bitsize // 8, bits, widths)


def _none(builder: _Builder, name: str, info: TypeInfo, bitsize: int) -> Type | None:
    return None


_MAKERS: dict[str, Callable[[_Builder, str, TypeInfo, int], Type | None]] = {
    "vector": _vector, "union": _union, "flags": _flags,
}  # fmt: skip
