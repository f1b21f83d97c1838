"""A C++ class's member functions read from its DIE (for calls into the program), and
whether the Itanium C++ ABI passes and returns the class by invisible reference.

gdb's gnuv3_pass_by_reference decides the latter from the class's declarations: a class
with a user-provided copy or move constructor or destructor, a virtual function, or a base
or member that is itself so, is "non-trivial for the purposes of calls" and lives in
memory even when it is small enough for registers (g++ emits no DW_AT_calling_convention).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from elftools.dwarf.die import DIE

from aliceserver.debuggers.symbols.dwarf.dies import attr_value, die_name
from aliceserver.debuggers.symbols.dwarf.dietree import children
from aliceserver.debuggers.symbols.dwarf.locexpr import ByteReader
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    FunctionType,
    MemberFunction,
    PointerType,
    QualifiedType,
    ReferenceType,
    StructType,
    Type,
    strip,
)

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.type_builder import TypeBuilder

_DW_DEFAULTED_IN_CLASS = 1
_MAX_DEPTH = 32  # bad DWARF with a class containing itself still ends


def read_member_functions(builder: TypeBuilder, die: DIE) -> list[MemberFunction]:
    found = []
    for child in children(die):
        if child.tag != "DW_TAG_subprogram":
            continue
        name = die_name(child)
        if name is None:
            continue
        linkage = attr_value(child, "DW_AT_linkage_name") or attr_value(child, "DW_AT_MIPS_linkage_name")
        fn = FunctionType(builder.of_die_attr(child), prototyped=True)
        formal = [p for p in children(child) if p.tag == "DW_TAG_formal_parameter"]
        has_this = "DW_AT_object_pointer" in child.attributes or bool(
            formal and attr_value(formal[0], "DW_AT_artificial")
        )
        for param in formal:
            if not attr_value(param, "DW_AT_artificial"):
                fn.params.append(builder.of_die_attr(param))
        fn.varargs = any(p.tag == "DW_TAG_unspecified_parameters" for p in children(child))
        found.append(MemberFunction(
            name=name,
            linkage=linkage.decode(errors="replace") if isinstance(linkage, bytes) else linkage,
            type=fn,
            static=not has_this,
            artificial=bool(attr_value(child, "DW_AT_artificial")),
            defaulted=attr_value(child, "DW_AT_defaulted") == _DW_DEFAULTED_IN_CLASS,
            virtual_slot=_vtable_slot(child),
            const=has_this and bool(formal) and _points_to_const(builder.of_die_attr(formal[0])),
        ))  # fmt: skip
    return found


def _points_to_const(this: Type) -> bool:
    target = this.target if isinstance(this, PointerType) else None
    return isinstance(target, QualifiedType) and target.const


def _vtable_slot(die: DIE) -> int | None:
    attr = die.attributes.get("DW_AT_vtable_elem_location")
    expr = bytes(attr.value) if attr is not None and isinstance(attr.value, (list, bytes)) else b""
    if len(expr) > 1 and expr[0] == 0x10:  # DW_OP_constu
        return ByteReader(expr[1:]).uleb()
    if attr_value(die, "DW_AT_virtuality"):
        return -1  # virtual, slot unknown (a pure virtual declaration without one)
    return None


def pass_by_reference(t: StructType, depth: int = 0) -> bool:
    """Whether the class is passed and returned through memory whatever its size."""
    if not t.cplus or depth > _MAX_DEPTH:
        return False
    functions = t.member_functions() if t.member_functions is not None else []
    for fn in functions:
        if fn.virtual_slot is not None:
            return True  # a dynamic class
        if fn.artificial or fn.defaulted:
            continue
        if fn.name.startswith("~") or copies(fn, t):
            return True
    for member in t.members:
        inner = strip(member.type)
        while isinstance(inner, ArrayType):
            inner = strip(inner.element)
        if isinstance(inner, StructType) and pass_by_reference(inner, depth + 1):
            return True
    return False


def copies(fn: MemberFunction, cls: StructType) -> bool:
    """A copy or move constructor: one parameter, a reference to the class itself."""
    if fn.static or len(fn.type.params) != 1 or fn.name != (cls.tag or "").rsplit("::", 1)[-1].split("<")[0]:
        return False
    param = strip(fn.type.params[0])
    return isinstance(param, ReferenceType) and strip(param.target) is cls
