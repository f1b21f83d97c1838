"""C++ members by access, as gdb's var objects show a class: its bases, then one child per
access (public, private, protected) that has members, compiler-made members left out."""

from __future__ import annotations

from aliceserver.debuggers.symbols.dwarf.types import (
    Member,
    PointerType,
    ReferenceType,
    StructType,
    Type,
    strip,
)

ACCESSES = ("public", "private", "protected")  # the order gdb lists the groups in


def cplus_class(t: Type) -> StructType | None:
    """The C++ class (or union) `t` is, or a pointer or reference to it points to."""
    t = strip(t)
    if isinstance(t, (PointerType, ReferenceType)):
        t = strip(t.target)
    if isinstance(t, StructType) and t.cplus and not t.rust and not t.declaration:
        return t
    return None


def shown(member: Member) -> bool:
    """Whether gdb's var objects list the member in a group (no base, nothing artificial)."""
    return not member.is_base and not member.artificial


def class_children(st: StructType) -> int:
    """gdb's child count of a class var object: its bases, plus each non-empty group."""
    members = st.members
    groups = {m.access for m in members if shown(m)} | {s.access for s in st.statics}
    return sum(1 for m in members if m.is_base) + sum(1 for a in ACCESSES if a in groups)
