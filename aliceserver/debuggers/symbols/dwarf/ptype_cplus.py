"""gdb's `ptype` of a C++ class: its head (`class K [with T = int] : public B {`), data
members under access labels, then its methods (ptype/m leaves them out) and the typedefs
it declares (ptype/t leaves them out), as gdb 13's c_type_print_base_struct_union writes
them: artificial members and methods hidden, a constructor or conversion operator without
a return type, `(void)` for no parameters, a class's own typedefs and the template's
parameters naming the types they stand for (not under ptype/r), member types named by the
scripts' type printers."""

from __future__ import annotations

import re
from collections.abc import Callable

from aliceserver.debuggers.symbols.dwarf.class_decls import ClassDeclarations, MethodDecl
from aliceserver.debuggers.symbols.dwarf.ptype import _expanded, _innermost, _resolve
from aliceserver.debuggers.symbols.dwarf.ptype_offsets import _head, _type_params, substitute
from aliceserver.debuggers.symbols.dwarf.types import (
    Member,
    StaticMember,
    StructType,
    Type,
    TypedefType,
    declaration,
    type_name,
)

Rename = Callable[[Type], "str | None"]


class _Printer:
    def __init__(self, flags: str, rename: Rename) -> None:
        self.raw = "r" in flags
        self.methods = "m" not in flags.replace("M", "") or flags.rfind("M") > flags.rfind("m")
        self.typedefs = "t" not in flags.replace("T", "") or flags.rfind("T") > flags.rfind("t")
        self.rename = rename

    def named(self, t: Type, name: str, names: dict[str, str], show: int = 0, level: int = 0) -> str:
        """A declaration of `name` with type `t` (`T value`, `std::string s`, `size_type n`)."""
        declared = declaration(t, name) if name else type_name(t)
        base = _innermost(t)
        base_name = type_name(base)
        if not self.raw:
            whole = names.get(type_name(t))  # the type a template parameter or typedef stands for
            if whole is not None:
                return f"{whole} {name}" if name else whole
            local = self.rename(base)
            if local is not None and local != base_name:
                at = declared.find(base_name)
                return declared if at < 0 else declared[:at] + local + declared[at + len(base_name):]
            # Inside the base type's name only (`Base<char*>` -> `Base<U*>`): a pointer or
            # reference to one (`T *`'s `tinyxml2::XMLNode **`) is written out, as gdb's.
            renamed = substitute(base_name, names)
            at = declared.find(base_name)
            if renamed != base_name and at >= 0:
                return declared[:at] + renamed + declared[at + len(base_name):]
        if isinstance(base, TypedefType):
            return declared
        body: str | None = None
        if isinstance(base, StructType) and base.tag is None and not base.declaration and show >= 0:
            body = self.body(base, 0, level, names)
        elif not isinstance(base, StructType):
            body = _expanded(base, show, level // 4)
        if body is None:
            return declared
        at = declared.find(base_name)
        return declared if at < 0 else declared[:at] + body + declared[at + len(base_name):]

    def body(self, t: StructType, show: int, level: int, outer: dict[str, str]) -> str:
        decls = t.declarations() if t.declarations is not None else ClassDeclarations()
        names = dict(outer)
        if not self.raw:
            names.update({shown: name for name, shown in _type_params(t)})
            names.update({f"{t.tag}::{name}": name for name, _target, _access in decls.typedefs})
        lines = [_head(t, self.raw)]
        renamed = None if self.raw or t.tag is None else self.rename(t)  # gdb's print_name_maybe_canonical
        if renamed and t.tag and renamed != t.tag:
            lines[0] = lines[0].replace(t.tag, renamed, 1)
        labels, section = _needs_labels(t, decls), ""
        fields = [f for f in t.fields_in_order() if not (isinstance(f, Member) and (f.is_base or f.artificial))]
        for item in fields:
            if labels and item.access != section:
                section = item.access
                lines.append(" " * (level + 2) + f"{section}:")
            static = "static " if isinstance(item, StaticMember) else ""
            bits = f" : {item.bit_size}" if isinstance(item, Member) and item.bit_size else ""
            declared = self.named(item.type, item.name or "", names, show - 1, level + 4)
            lines.append(" " * (level + 4) + static + declared + bits + ";")
        shown = [m for m in decls.methods if not m.artificial] if self.methods else []
        if shown and section:
            lines.append("")
        for method in shown:  # gdb writes each method's label, needed or not
            if method.access != section:
                section = method.access
                lines.append(" " * (level + 2) + f"{section}:")
            lines.append(" " * (level + 4) + self.method(t, method, names) + ";")
        if decls.typedefs and self.typedefs:
            if t.members or t.statics or decls.methods:
                lines.append("")
            for name, target, access in decls.typedefs:
                if labels and access != section:
                    section = access
                    lines.append(" " * (level + 2) + f"{section}:")
                lines.append(" " * (level + 4) + "typedef " + self.named(target, name, names, show - 1, level + 4) + ";")
        if not t.members and not t.statics and not decls.methods and not decls.typedefs:
            lines.append(" " * (level + 4) + "<no data fields>")
        lines.append(" " * level + "}")
        return "\n".join(lines)

    def method(self, owner: StructType, m: MethodDecl, names: dict[str, str]) -> str:
        plain_type = _constructor(owner, m) or m.name.startswith("~") or _conversion(m.name)
        returned = "" if plain_type else self.named(m.return_type, "", names, -1) + " "
        prefix = "virtual " if m.virtual else "static " if m.static else ""
        params = [self.named(p, "", names) for p in m.params]
        if params:  # gdb's cp_type_print_method_args: the artificial ones left out
            listed = ", ".join(params) + (", ..." if m.varargs else "")
        else:
            listed = "..." if m.varargs else "void"
        qualifiers = (" const" if m.const else "") + (" volatile" if m.volatile else "")
        return f"{prefix}{returned}{m.name}({listed}){qualifiers}"


def _short_name(tag: str) -> str:
    """`ns::Holder<int>` -> `Holder`: the name a constructor has."""
    depth, start = 0, 0
    for i, ch in enumerate(tag):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == ":" and depth == 0 and tag[i:i + 2] == "::":
            start = i + 2
    return tag[start:].split("<", 1)[0]


def _constructor(owner: StructType, m: MethodDecl) -> bool:
    """gdb's test: the class's own name, or a mangled name saying so (C1, C2...); a
    template constructor without a linkage name is not known as one."""
    if m.name == owner.tag:
        return True
    mangled = re.search(r"C[1-5]E", m.linkage) is not None and m.linkage.startswith("_Z")
    return mangled and m.name.split("<", 1)[0] == _short_name(owner.tag or "")


def _conversion(name: str) -> bool:
    """gdb's is_type_conversion_operator: `operator int`, not `operator new[]`."""
    if not name.startswith("operator") or len(name) == len("operator"):
        return False
    rest = name[len("operator"):]
    if not rest[0].isspace():
        return False
    word = rest.strip()
    return word.split("[", 1)[0].strip() not in ("new", "delete")


def _needs_labels(t: StructType, decls: ClassDeclarations) -> bool:
    """gdb's need_access_label_p, an artificial field (a vtable pointer) being private."""
    fields = [f for f in t.fields_in_order() if not (isinstance(f, Member) and f.is_base)]
    access = ["private" if isinstance(f, Member) and f.artificial else f.access for f in fields]
    access += [m.access for m in decls.methods] + [a for _n, _t, a in decls.typedefs]
    if t.keyword == "class":
        return any(a != "private" for a in access)
    return any(a != "public" for a in access)


def cplus_ptype(t: Type, flags: str, rename: Rename) -> str | None:
    """What `ptype` prints after `type = ` for a value of type `t` whose innermost type is
    a C++ class (None otherwise)."""
    base = _innermost(t)
    shown = _resolve(base)
    if not isinstance(shown, StructType) or not shown.cplus or shown.rust:
        return None
    printer = _Printer(flags, rename)
    if shown.declaration:  # only declared where it is used (std::cout's class)
        body = f"{shown.keyword} {shown.tag} {{\n    <incomplete type>\n}}"  # gdb knows no more of it
    else:
        body = printer.body(shown, 1, 0, {})
    name, base_name = type_name(t), type_name(base)
    at = name.find(base_name)
    return body if base is t or at < 0 else name[:at] + body + name[at + len(base_name):]
