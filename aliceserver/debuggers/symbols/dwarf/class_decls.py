"""What a C++ class declares besides its data members, as gdb's ptype writes it out: its
member functions (in DWARF order, grouped by name as gdb's fn_fieldlists group them) with
their access, qualifiers and parameters, and the typedefs declared in it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from elftools.dwarf.die import DIE

from aliceserver.debuggers.symbols.dwarf.dies import attr_value, die_name
from aliceserver.debuggers.symbols.dwarf.dietree import children
from aliceserver.debuggers.symbols.dwarf.types import PointerType, QualifiedType, Type

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.type_builder import TypeBuilder

_ACCESS = {1: "public", 2: "protected", 3: "private"}


@dataclass(eq=False)
class MethodDecl:
    name: str
    return_type: Type
    params: list[Type]  # without `this` and the other artificial ones
    varargs: bool
    static: bool
    virtual: bool
    artificial: bool
    access: str
    const: bool = False
    volatile: bool = False
    linkage: str = ""  # DW_AT_linkage_name (a template's member may have none)


@dataclass(eq=False)
class ClassDeclarations:
    methods: list[MethodDecl] = field(default_factory=list)
    typedefs: list[tuple[str, Type, str]] = field(default_factory=list)  # name, target, access


def _access(die: DIE, parent: DIE) -> str:
    found = _ACCESS.get(attr_value(die, "DW_AT_accessibility") or 0)
    if found is not None:
        return found
    if die.cu.header.version < 3:
        return "public"
    return "private" if parent.tag == "DW_TAG_class_type" else "public"


def _text(value: object) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value) if value else ""


def _has_slot(die: DIE) -> bool:
    """gdb's TYPE_FN_FIELD_VIRTUAL_P: a vtable slot given (g++ gives none for a virtual
    destructor, which gdb then does not call virtual)."""
    attr = die.attributes.get("DW_AT_vtable_elem_location")
    return attr is not None and isinstance(attr.value, (list, bytes)) and len(attr.value) > 0


def _method(builder: TypeBuilder, die: DIE, parent: DIE, name: str) -> MethodDecl:
    formal = [p for p in children(die) if p.tag == "DW_TAG_formal_parameter"]
    this = "DW_AT_object_pointer" in die.attributes or bool(formal and attr_value(formal[0], "DW_AT_artificial"))
    method = MethodDecl(
        name=name, return_type=builder.of_die_attr(die),
        params=[builder.of_die_attr(p) for p in formal if not attr_value(p, "DW_AT_artificial")],
        varargs=any(p.tag == "DW_TAG_unspecified_parameters" for p in children(die)),
        static=not this, virtual=_has_slot(die),
        artificial=bool(attr_value(die, "DW_AT_artificial")), access=_access(die, parent),
        linkage=_text(attr_value(die, "DW_AT_linkage_name") or attr_value(die, "DW_AT_MIPS_linkage_name")),
    )  # fmt: skip
    if this and formal:
        pointer = builder.of_die_attr(formal[0])
        target = pointer.target if isinstance(pointer, PointerType) else None
        if isinstance(target, QualifiedType):
            method.const, method.volatile = target.const, target.volatile
    return method


def read_declarations(builder: TypeBuilder, die: DIE) -> ClassDeclarations:
    found = ClassDeclarations()
    groups: dict[str, list[MethodDecl]] = {}
    for child in children(die):
        name = die_name(child)
        if name is None:
            continue
        if child.tag == "DW_TAG_subprogram":
            groups.setdefault(name, []).append(_method(builder, child, die, name))
        elif child.tag == "DW_TAG_typedef":
            found.typedefs.append((name, builder.of_die_attr(child), _access(child, die)))
    found.methods = [method for group in groups.values() for method in group]
    return found
