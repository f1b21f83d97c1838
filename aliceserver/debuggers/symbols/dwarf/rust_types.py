"""Rust types as gdb names and describes them (rust-lang.c): `*mut T`, `[T; N]`,
`fn (A) -> R`, `()`, and `ptype` bodies in Rust's syntax (`struct r::Point {\\n  x: i32,\\n}`).

rustc describes Rust in plain DWARF: references, raw pointers and Box are pointer types
(gdb shows them all as `*mut T`), tuples are structs named `(i32, u8)` with members `__0`,
`__1`, slices and `&str` are structs of `data_ptr` and `length`, enums with data are
structs with a variant part. These predicates are gdb's, so values print as gdb's do.
"""

from __future__ import annotations

from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    EnumType,
    FunctionType,
    PointerType,
    QualifiedType,
    ReferenceType,
    StructType,
    Type,
    TypedefType,
    VoidType,
    strip,
)

_INDENT = "  "
# A byte string literal's element (`b"ab"`): `u8` as rustc never encodes it
# (DW_ATE_unsigned_char), so that the array prints as gdb's byte string (its
# TYPE_CODE_STRING: `b"ab"`), not as `[97, 98]`.
BYTE = BaseType("u8", 1, Encoding.UNSIGNED_CHAR)
BYTE.rust = True


def is_rust(t: Type) -> bool:
    """Whether `t` came from a Rust unit (or was made from one by the evaluator)."""
    for _ in range(64):
        if t.rust:
            return True
        if isinstance(t, (PointerType, ReferenceType, QualifiedType, TypedefType)):
            t = t.target
        elif isinstance(t, ArrayType):
            t = t.element
        else:
            return False
    return False


def is_tuple(t: StructType) -> bool:
    """gdb's rust_tuple_type_p: a struct whose name starts with `(`."""
    return t.keyword == "struct" and (t.tag or "").startswith("(")


def is_tuple_struct(t: StructType) -> bool:
    """gdb's rust_tuple_struct_type_p: members named __0, __1... (at least one)."""
    members = t.members
    return bool(members) and all(m.name == f"__{i}" for i, m in enumerate(members))


def is_slice(t: StructType) -> bool:
    """gdb's rust_slice_type_p: a named struct of exactly `data_ptr` and `length`."""
    members = t.members
    return (
        t.tag is not None
        and len(members) == 2
        and {m.name for m in members} == {"data_ptr", "length"}
    )


def is_unit(t: Type) -> bool:
    t = strip(t)
    return isinstance(t, BaseType) and t.size == 0 and t.name == "()"


def rust_type_name(t: Type, depth: int = 0) -> str:
    """What gdb's Rust type printer shows with show <= 0 (whatis, `(*mut T)` prefixes)."""
    if depth > 32:
        return "..."
    if isinstance(t, VoidType):
        return "()"
    if isinstance(t, (BaseType, TypedefType)):
        return t.name
    if isinstance(t, StructType):
        return t.tag if t.tag is not None else f"{t.keyword} {{...}}"
    if isinstance(t, EnumType):
        return t.tag if t.tag is not None else "enum {...}"
    if isinstance(t, QualifiedType):
        return rust_type_name(t.target, depth + 1)
    if isinstance(t, (PointerType, ReferenceType)):
        # gdb cannot tell references, raw pointers and Box apart: all are `*mut T`.
        return "*mut " + rust_type_name(t.target, depth + 1)
    if isinstance(t, ArrayType):
        element = rust_type_name(t.element, depth + 1)
        return f"[{element}]" if t.count is None else f"[{element}; {t.count}]"
    if isinstance(t, FunctionType):
        params = ", ".join(rust_type_name(p, depth + 1) for p in t.params)
        text = f"fn ({params})"
        if not isinstance(strip(t.return_type), VoidType):
            text += " -> " + rust_type_name(t.return_type, depth + 1)
        return text
    return "<unknown type>"


def rust_ptype(t: Type) -> str:
    """gdb's `ptype` of a Rust type (show 1): struct, tuple struct and enum bodies."""
    return _describe(t, show=1, level=0)


def _describe(t: Type, show: int, level: int, in_enum: bool = False) -> str:
    if show <= 0 and not isinstance(t, (PointerType, ReferenceType, ArrayType, FunctionType)):
        name = rust_type_name(t)
        if not (name.startswith("struct {") or name.startswith("enum {")):
            return name
    t = strip(t)
    if isinstance(t, StructType):
        return _struct(t, show, level, in_enum)
    if isinstance(t, EnumType):
        lines = ["enum " + (f"{t.tag} " if t.tag else "") + "{"]
        prefix = f"{t.tag}::" if t.tag else ""
        for name, _value in t.enumerators:
            shown = name[len(prefix):] if prefix and name.startswith(prefix) else name
            lines.append(f"{' ' * (level + 2)}{shown},")
        return "\n".join(lines) + "\n}"
    if isinstance(t, ArrayType):
        element = _describe(t.element, show - 1, level)
        return f"[{element}]" if t.count is None else f"[{element}; {t.count}]"
    return rust_type_name(t)


def _struct(t: StructType, show: int, level: int, in_enum: bool) -> str:
    if is_tuple(t):
        return t.tag or "()"
    variants = t.variants
    enum = variants is not None and not t.members
    tuple_struct = is_tuple_struct(t)
    head = ""
    if not in_enum:
        head = ("enum " if enum else f"{t.keyword} ") + (t.tag or "")
    fields: list[tuple[str, Type]]
    if enum and variants is not None:
        fields = [(m.name or "", m.type) for _, m in variants.variants]
    else:
        fields = [(m.name or "", m.type) for m in t.members]
    if not fields:
        return head
    parts: list[str] = []
    for name, ftype in fields:
        if enum:
            text = name + _describe(ftype, show, level + 2, in_enum=True)
        elif tuple_struct:
            text = _describe(ftype, show - 1, level + 2)
        else:
            text = f"{name}: {_describe(ftype, show - 1, level + 2)}"
        parts.append(text)
    if in_enum:
        return ("(" if tuple_struct else "{") + ", ".join(parts) + (")" if tuple_struct else "}")
    pad = " " * (level + 2)
    body = "".join(f"{pad}{part},\n" for part in parts)
    opening, closing = (" (\n", ")") if tuple_struct else (" {\n", "}")
    return head + opening + body + " " * level + closing
