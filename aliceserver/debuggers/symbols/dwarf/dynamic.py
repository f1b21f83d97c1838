"""C++ dynamic types, found as gdb's gnu-v3 ABI finds them (gdb's `set print object`).

A polymorphic object (a class with a virtual function or base) starts with its vtable
pointer. It points into the ELF symbol `_ZTV...`, `vtable for NAME`, of the most derived
class; the word two slots before it (offset-to-top) is how far the full object starts
before this subobject (not zero under multiple or virtual inheritance). NAME's type comes
from DWARF. Where any step fails (no vtable symbol: garbage, or not a class object), the
static type stays and nothing is said: a value is never made an error by this.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError, MemoryLoc
from aliceserver.debuggers.symbols.dwarf.types import (
    PointerType,
    QualifiedType,
    ReferenceType,
    StructType,
    Type,
    TypedefType,
    strip,
)
from aliceserver.debuggers.symbols.dwarf.values import MASK64, Value, read


@dataclass(frozen=True, slots=True)
class Rtti:
    """What finding a dynamic type needs from the program."""

    # The class whose vtable holds this runtime address (`geo::Box<int>`), or None.
    vtable_class: Callable[[int], str | None]
    find_type: Callable[[str], Type | None]  # a class by its qualified name


_VTABLE_PREFIX = "vtable for "


def vtable_class_name(demangled: str | None) -> str | None:
    """`geo::Rect` from `vtable for geo::Rect` (construction vtables and others: None)."""
    if demangled is None or not demangled.startswith(_VTABLE_PREFIX):
        return None
    return demangled[len(_VTABLE_PREFIX) :]


def is_dynamic_class(t: Type, depth: int = 0) -> bool:
    """A class with a vtable pointer of its own or through a base."""
    t = strip(t)
    if not isinstance(t, StructType) or not t.cplus or depth > 16:
        return False
    for member in t.members:
        if member.artificial and (member.name or "").startswith("_vptr"):
            return True
        if member.is_base and (member.location is not None or is_dynamic_class(member.type, depth + 1)):
            return True
    return False


def rtti_type(obj: Value, rtti: Rtti) -> tuple[StructType, int] | None:
    """(the most derived class, the full object's address) of a class object in memory."""
    if obj.address is None or not is_dynamic_class(obj.type):
        return None
    address = obj.address & MASK64
    try:
        vptr = int.from_bytes(read(obj.ctx, address, 8), "little")
        name = rtti.vtable_class(vptr)
        if name is None:
            return None
        top = int.from_bytes(read(obj.ctx, vptr - 16, 8), "little", signed=True)
    except EvaluationError:
        return None
    found = rtti.find_type(name)
    real = strip(found) if found is not None else None
    if not isinstance(real, StructType) or real.declaration:
        return None
    return real, (address + top) & MASK64


def _keep_qualifiers(static: Type, real: Type) -> Type:
    # `const geo::Shape *` becomes `const geo::Rect *`, as gdb's value_rtti_indirect_type.
    while isinstance(static, TypedefType):
        static = static.target
    if isinstance(static, QualifiedType):
        return QualifiedType(real, static.const, static.volatile, static.restrict)
    return real


def dynamic_indirect(value: Value, rtti: Rtti) -> Value | None:
    """A pointer or reference to a class object as one to its most derived class, pointing
    at the full object; None when there is nothing to change (null, not polymorphic)."""
    t = strip(value.type)
    if not isinstance(t, (PointerType, ReferenceType)) or not is_dynamic_class(t.target):
        return None
    try:
        address = value.as_int() & MASK64
    except EvaluationError:
        return None
    if address == 0:
        return None
    found = rtti_type(Value(t.target, MemoryLoc(address), value.ctx), rtti)
    if found is None:
        return None
    real, full = found
    target = _keep_qualifiers(t.target, real)
    new: Type = (
        PointerType(target, t.size) if isinstance(t, PointerType) else ReferenceType(target, t.rvalue, t.size)
    )
    new = _keep_qualifiers(value.type, new)  # `Derived * const` (this) too, as gdb's
    if full == address:
        return value.with_type(new)  # the same bytes: still the variable (its address, writes)
    return Value.of_int(new, full, value.ctx)


def dynamic_object(value: Value, rtti: Rtti) -> Value | None:
    """A class object as its most derived class (the full object); None when unknown."""
    found = rtti_type(value, rtti)
    if found is None:
        return None
    real, full = found
    return Value(real, MemoryLoc(full), value.ctx)


def dynamic_value(value: Value, rtti: Rtti, *, objects: bool = False) -> Value | None:
    """`dynamic_indirect`, or with `objects` also `dynamic_object`."""
    if objects and isinstance(strip(value.type), StructType):
        return dynamic_object(value, rtti)
    return dynamic_indirect(value, rtti)
