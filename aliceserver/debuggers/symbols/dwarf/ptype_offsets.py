"""gdb's `ptype/o`: a struct or union written out with each field's offset and size in a
27-column comment, holes and padding flagged (`/* XXX  3-byte hole      */`) and the total
size after each body.

This follows gdb 13's print_offset_data (typeprint.c) and c_type_print_base_struct_union
as they behave, quirks kept so the output is the same: a struct or union field (not one
behind a typedef) is written out at the same show level, carrying its offset; a nested
body's hole check starts from where the field began in its parent; a union's fields show
only their sizes; methods and typedefs are left out (gdb turns them off with /o); the
first field after a C++ base class (or a vtable pointer) is never preceded by a hole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aliceserver.debuggers.symbols.dwarf.ptype import _expanded, _innermost, _resolve
from aliceserver.debuggers.symbols.dwarf.types import (
    Member,
    QualifiedType,
    StaticMember,
    StructType,
    Type,
    TypedefType,
    declaration,
    type_name,
)

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.expr.evalsymbols import EvalSymbols

HEADER = "/* offset      |    size */  "
_COLUMN = 27  # gdb's print_offset_data::indentation
_WRAP = 1 << 64  # gdb keeps the positions in unsigned 64-bit integers


@dataclass
class _Offsets:
    """gdb's print_offset_data: where the enclosing body starts (bits from the outermost
    struct) and where the last field printed ended (bits, relative to its struct)."""

    hex: bool
    offset_bitpos: int = 0
    end_bitpos: int = 0

    def hole(self, bitpos: int, what: str) -> list[str]:
        if not 0 < self.end_bitpos < bitpos:
            return []
        size = bitpos - self.end_bitpos
        lines = [f"/* XXX {size % 8:2}-bit {what:<7}    */"] if size % 8 else []
        return lines + ([f"/* XXX {size // 8:2}-byte {what:<7}   */"] if size // 8 else [])

    def update(self, owner: StructType, member: Member, lines: list[str]) -> str:
        """The field's comment (holes before it go to `lines`); moves the end past it."""
        size = _resolve(member.type).size
        if owner.keyword == "union":
            shown = f"0x{size:04x}" if self.hex else str(size)
            return f"/*                {shown:>6} */"
        bitpos = (member.offset or 0) * 8 + member.bit_offset
        lines.extend(self.hole(bitpos, "hole"))
        bits = size * 8
        if member.bit_size or self.offset_bitpos % 8:
            bits = member.bit_size
            real = bitpos + self.offset_bitpos
            place = f"/* 0x{real // 8:04x}: 0x{real % 8:x}" if self.hex else f"/* {real // 8:6}:{real % 8:2}  "
        else:
            real = (bitpos + self.offset_bitpos) // 8
            place = (f"/* 0x{real:04x}" if self.hex else f"/* {real:6}") + "     "
        self.end_bitpos = bitpos + bits
        return place + (f" |  0x{size:04x} */" if self.hex else f" |  {size:6} */")


def names_typedef(expression: str, symbols: EvalSymbols) -> bool:
    """Whether the expression is a typedef's name alone (`ptype/o pair_t`): its type is
    the typedef, which gdb's header is not for, though evaluating it gives the target."""
    from aliceserver.debuggers.symbols.dwarf.expr import ast
    from aliceserver.debuggers.symbols.dwarf.expr.entry import parse_expression

    tree = parse_expression(expression, symbols)
    if not isinstance(tree, ast.TypeExpr):
        return False
    name = tree.type
    if name.pointers or name.array or name.reference or name.function_pointers or name.array_pointers:
        return False
    return isinstance(symbols.lookup_type(name.base), TypedefType)


def offsets_text(t: Type, hex_numbers: bool = False, header: bool = True) -> str | None:
    """What `ptype/o` prints for type `t` (the header and `type = ` included; `header`
    False for a typedef named alone); None where there is no struct or union to lay out."""
    base = _innermost(t)
    shown = _resolve(base)
    if not isinstance(shown, StructType) or shown.declaration or shown.rust:
        return None
    body = _body(shown, 1, 0, _Offsets(hex_numbers))
    name, base_name = type_name(t), type_name(base)
    at = name.find(base_name)
    text = body if base is t or at < 0 else name[:at] + body + name[at + len(base_name):]
    direct = t.target if isinstance(t, QualifiedType) else t
    return (HEADER if header and isinstance(direct, StructType) else "") + "type = " + text


def substitute(text: str, names: dict[str, str]) -> str:
    """gdb's print_name_maybe_canonical: each type a local typedef or template parameter
    stands for named by it wherever it appears (`Base<char*>` -> `Base<U*>`), longest
    first, a `> >` left where a whole argument list closes."""
    for shown in sorted(names, key=len, reverse=True):
        pattern = rf"(?<![\w:]){re.escape(shown)}(?![\w])"
        if re.search(pattern, text):
            text = re.sub(pattern, names[shown], text)
            text = re.sub(r"(?<=[^>\s]) >", ">", text)
    return text


def _type_params(t: StructType) -> list[tuple[str, str]]:
    """The class template's type parameters: (name, the type it stands for)."""
    params = t.template_params() if t.template_params is not None else []
    return [(p.name, type_name(p.type)) for p in params if p.value is None and p.name]


def _head(t: StructType, raw: bool = False) -> str:
    head = f"{t.keyword} {t.tag}" if t.tag else t.keyword
    params = [] if raw else _type_params(t)
    if params:  # gdb's c_type_print_template_args
        head += " [with " + ", ".join(f"{name} = {shown}" for name, shown in params) + "]"
    names = {shown: name for name, shown in params}
    bases = [m for m in t.members if m.is_base]
    for index, base in enumerate(bases):
        virtual = " virtual" if base.offset is None or base.location is not None else ""
        head += (" : " if index == 0 else ", ") + f"{base.access}{virtual} {substitute(type_name(base.type), names)}"
    return head + " {"


def _needs_labels(t: StructType) -> bool:
    """gdb's need_access_label_p over the fields (methods are not known by access here:
    a class with any method of its own is taken to show its labels)."""
    if not t.cplus:
        return False
    fields = [f for f in t.fields_in_order() if not (isinstance(f, Member) and f.is_base)]
    # gdb's reader makes an artificial field (a vtable pointer) private
    access = ["private" if isinstance(f, Member) and f.artificial else f.access for f in fields]
    if t.keyword == "class":
        functions = t.member_functions() if t.member_functions else []
        return any(a != "private" for a in access) or any(not f.artificial for f in functions)
    return any(a != "public" for a in access)


def _body(t: StructType, show: int, level: int, offsets: _Offsets, outer: dict[str, str] | None = None) -> str:
    """The struct's body from its head to its closing brace (no newline after it).
    `outer`: the enclosing bodies' template parameters (type name -> parameter name),
    which gdb's table of local typedefs passes down to a member's body."""
    names = {**(outer or {}), **{shown: name for name, shown in _type_params(t)}}
    lines = [_head(t)]
    inner = _Offsets(offsets.hex)  # gdb's local_podata: shared by the fields' own bodies
    labels, section = _needs_labels(t), ""
    shown = [f for f in t.fields_in_order() if not (isinstance(f, Member) and (f.is_base or f.artificial))]
    for item in shown:
        if labels and item.access != section:
            section = item.access
            lines.append(" " * (_COLUMN + level + 2) + f"{section}:")
        if isinstance(item, StaticMember):
            declared = _declaration(item.type, item.name, show - 1, level + 4, inner, t, names)
            lines.append(" " * (_COLUMN + level + 4) + "static " + declared + ";")
            continue
        comment = offsets.update(t, item, lines)
        field_show = show - 1
        direct = item.type.target if isinstance(item.type, QualifiedType) else item.type
        if isinstance(direct, StructType):  # written out, not named: carry its offset
            field_show = show
            inner.offset_bitpos = offsets.offset_bitpos + (item.offset or 0) * 8 + item.bit_offset
            inner.end_bitpos = (offsets.end_bitpos - direct.size * 8) % _WRAP
        declared = _declaration(item.type, item.name or "", field_show, level + 4, inner, t, names)
        bits = f" : {item.bit_size}" if item.bit_size else ""
        lines.append(comment + " " * (level + 4) + declared + bits + ";")
    if not shown:
        lines.append(" " * (_COLUMN + level + 4) + "<no data fields>")
    if show > 0:
        lines.extend(offsets.hole(t.size * 8, "padding"))
        lines.append("")
        lines.append(" " * (_COLUMN + level + 4) + f"/* total size (bytes): {t.size:4} */")
    lines.append(" " * (_COLUMN + level + (2 if level == 0 else 0)) + "}")
    return "\n".join(lines)


def _local_name(declared: str, name: str, owner: StructType) -> str:
    """A typedef the class itself declares is named as inside it (`myint`, not
    `Derived::myint`), as gdb's table of the class's own typedefs names it."""
    prefix = f"{owner.tag}::"
    if owner.cplus and owner.tag and name.startswith(prefix) and "::" not in name[len(prefix):]:
        return declared.replace(name, name[len(prefix):], 1)
    return declared


def _declaration(t: Type, name: str, show: int, level: int, offsets: _Offsets, owner: StructType,
                 names: dict[str, str]) -> str:  # fmt: skip
    """A field's declaration, a struct or union under it written out as gdb's show asks,
    a type a template parameter stands for named by the parameter (`T value`)."""
    declared = declaration(t, name) if name else type_name(t)
    base = _innermost(t)
    base_name = type_name(base)
    if not (isinstance(base, StructType) and show > 0 and not base.declaration):
        renamed = substitute(declared, names)
        if renamed != declared:
            return renamed
    if isinstance(base, TypedefType):
        return _local_name(declared, base.name, owner)
    if isinstance(base, StructType) and not base.declaration:
        body = _body(base, show, level, offsets, names) if show > 0 or (show == 0 and base.tag is None) else None
    else:
        body = _expanded(base, show, level // 4)
    if body is None:
        return declared
    at = declared.find(base_name)
    return declared if at < 0 else declared[:at] + body + declared[at + len(base_name):]
