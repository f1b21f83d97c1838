"""gdb's `ptype` text of a C type: typedefs at the top resolved, struct, union and enum
bodies written out.

gdb prints the type with a "show" level of 1: the outermost struct/union/enum shows its
members; a member's named type shows only its name, an anonymous one its body (one level
further, where anonymous types become `struct {...}`). An enum lists its enumerators and
writes `= value` only where the value is not the previous one plus one (from 0). C++
enums name their underlying type as gdb's do (`enum class Mode : unsigned char {...}`);
C++ classes are written out by ptype_cplus.py.
"""

from __future__ import annotations

from dataclasses import replace

from aliceserver.debuggers.symbols.dwarf.rust_types import is_rust, rust_ptype
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    EnumType,
    FunctionType,
    NodebugFunctionType,
    PointerType,
    QualifiedType,
    ReferenceType,
    StructType,
    Type,
    TypedefType,
    VoidType,
    declaration,
    type_name,
)
from aliceserver.debuggers.symbols.dwarf.x86_registers import FlagsType

_INDENT = "    "


def ptype_text(t: Type) -> str:
    """What `ptype EXPR` prints after `type = ` for a value of type `t`."""
    if is_rust(t):
        return rust_ptype(t)
    if isinstance(_innermost(t), NodebugFunctionType):  # its ELF symbol says nothing of its type
        return type_name(_unknown_signature(t))  # gdb's `<unknown return type> (*)()`
    t = _declarator_resolved(t)
    base = _innermost(t)
    shown = _resolve(base)
    name = type_name(t)
    body = _expanded(shown, show=1, depth=0)
    if body is None:
        body = type_name(shown)
    base_name = type_name(base)
    if base is t:
        return body
    at = name.find(base_name)
    return name if at < 0 else name[:at] + body + name[at + len(base_name) :]


def resolved_base(t: Type) -> StructType | None:
    """The C++ class whose name `ptype_text` keeps (under pointers, arrays, qualifiers and
    typedefs), where a type printer may show another name; None for anything else."""
    base = _resolve(_innermost(t))
    return base if isinstance(base, StructType) and base.cplus and not is_rust(base) else None


def under_declarator(t: Type) -> bool:
    """Whether a pointer, reference or array is over the class: gdb's ptype then writes
    the class out (show 1 reaches it), where a type printer names only the class itself."""
    for _ in range(64):
        if isinstance(t, (PointerType, ReferenceType, ArrayType)):
            return True
        if not isinstance(t, (QualifiedType, TypedefType)):
            return False
        t = t.target
    return False


def _unknown_signature(t: Type) -> Type:
    """`t` with the function known only by its ELF symbol as gdb's ptype spells it."""
    if isinstance(t, PointerType):
        return replace(t, target=_unknown_signature(t.target))
    if isinstance(t, QualifiedType):
        return replace(t, target=_unknown_signature(t.target))
    return FunctionType(TypedefType("<unknown return type>", VoidType()), prototyped=False)


def _declarator_resolved(t: Type, depth: int = 0, top: bool = True) -> Type:
    """`t` with the typedefs of its declarator resolved (under pointers, references, arrays,
    qualifiers and a function's return type), as gdb's ptype (show 1) does: `char (*)[]`
    for a pointer to `typedef char t[]`. A function's parameters keep their names. Below
    the top, gdb loses a qualifier of a typedef that names a pointer, array or function
    (`const intp *` is `int **`)."""
    if depth > 64:
        return t
    if isinstance(t, TypedefType):
        return _declarator_resolved(t.target, depth + 1, top)
    if (
        isinstance(t, QualifiedType)
        and not top
        and isinstance(t.target, TypedefType)
        and isinstance(_resolve(t.target), (PointerType, ReferenceType, ArrayType, FunctionType))
    ):
        return _declarator_resolved(t.target, depth + 1, top)
    if isinstance(t, (PointerType, ReferenceType)):
        return replace(t, target=_declarator_resolved(t.target, depth + 1, False))
    if isinstance(t, QualifiedType):
        return replace(t, target=_declarator_resolved(t.target, depth + 1, top))
    if isinstance(t, ArrayType):
        return replace(t, element=_declarator_resolved(t.element, depth + 1, False))
    if isinstance(t, FunctionType) and not isinstance(t, NodebugFunctionType):
        return replace(t, return_type=_declarator_resolved(t.return_type, depth + 1, False))
    return t


def _innermost(t: Type) -> Type:
    """The type under pointers, references, arrays and qualifiers: where a declaration's
    name starts."""
    for _ in range(64):
        if isinstance(t, (PointerType, ReferenceType, QualifiedType)):
            t = t.target
        elif isinstance(t, ArrayType):
            t = t.element
        else:
            return t
    return t


def _resolve(t: Type) -> Type:
    for _ in range(64):
        if not isinstance(t, TypedefType):
            return t
        t = t.target
    return t


def _expanded(t: Type, show: int, depth: int) -> str | None:
    """The body of a struct, union or enum when `show` asks for it (None: name only)."""
    if isinstance(t, EnumType):
        if show <= 0 and (t.tag is not None or show < 0):
            return None
        return _enum_body(t)
    if isinstance(t, StructType) and not t.cplus and t.declaration and show > 0:  # only declared here
        head = f"{t.keyword} {t.tag} {{" if t.tag else f"{t.keyword} {{"
        return f"{head}\n{_INDENT * (depth + 1)}<incomplete type>\n{_INDENT * depth}}}"
    if isinstance(t, StructType) and not t.cplus and not t.declaration:
        if show <= 0 and (t.tag is not None or show < 0):
            return None
        return _struct_body(t, show, depth)
    if isinstance(t, FlagsType) and show > 0:
        return _flags_body(t)
    return None


def _flags_body(t: FlagsType) -> str:
    """gdb's TYPE_CODE_FLAGS: a one-bit field as bool at its bit, a wider one as the
    flags' unsigned type over its bits; unnamed fields too."""
    lines = []
    for index, (bit, name) in enumerate(t.flags):
        width = t.widths[index] if index < len(t.widths) else 1
        kind = "bool" if width == 1 else f"uint{8 * t.size}_t"
        span = f"@{bit}" if width == 1 else f"@{bit}-{bit + width - 1}"
        lines.append(f"{_INDENT}{kind} {name + ' ' if name else ''}{span};\n")
    return f"flag {t.name} {{\n" + "".join(lines) + "}"


def _enum_body(t: EnumType) -> str:
    parts, expected = [], 0
    for name, value in t.enumerators:
        parts.append(name if value == expected else f"{name} = {value}")
        expected = value + 1
    head = "enum class " if t.scoped else "enum "
    head += f"{t.tag} " if t.tag else ""
    if t.cplus and t.underlying:  # gdb names it in C++, though the source may not have
        head += f": {t.underlying} "
    return head + "{" + ", ".join(parts) + "}"


def _struct_body(t: StructType, show: int, depth: int) -> str:
    head = f"{t.keyword} {t.tag} {{" if t.tag else f"{t.keyword} {{"
    inner = _INDENT * (depth + 1)
    lines = [head]
    for member in t.members:
        lines.append(f"{inner}{_member_text(member.type, member.name or '', show - 1, depth + 1)}"
                     + (f" : {member.bit_size}" if member.bit_size else "") + ";")
    if not t.members:
        lines.append(f"{inner}<no data fields>")
    lines.append(_INDENT * depth + "}")
    return "\n".join(lines)


def _member_text(t: Type, name: str, show: int, depth: int) -> str:
    """A member's declaration; an anonymous struct/union/enum under it written out."""
    declared = declaration(t, name) if name else type_name(t)
    base = _innermost(t)
    body = _expanded(base, show, depth) if not isinstance(base, TypedefType) else None
    if body is None:
        return declared
    base_name = type_name(base)
    at = declared.find(base_name)
    return declared if at < 0 else declared[:at] + body + declared[at + len(base_name) :]


