"""A C++ object's vtables as gdb's `info vtbl` lists them (gnu-v3-abi.c, the Itanium ABI).

Each polymorphic subobject starts with a pointer into its vtable, where the virtual function
pointers begin. Subobjects at one address share it (a primary base and the class that
derives from it); the slots shown are those the classes there declare, up to the highest
DW_AT_vtable_elem_location. Secondary vtables (multiple inheritance) and virtual bases
(located through the vtable) each have their own, listed by address.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from aliceserver.debuggers.model import VtableInfo, VtableSlot
from aliceserver.debuggers.symbols.dwarf.dynamic import is_dynamic_class
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError, MemoryLoc
from aliceserver.debuggers.symbols.dwarf.types import (
    PointerType,
    ReferenceType,
    StructType,
    strip,
    type_name,
)
from aliceserver.debuggers.symbols.dwarf.values import MASK64, Value, read

_MAX_DEPTH = 16


@dataclass
class _Subobject:
    value: Value
    address: int
    last_slot: int = -1


def object_of(value: Value) -> Value | None:
    """The class object `info vtbl` looks at: through one pointer or reference."""
    t = strip(value.type)
    if isinstance(t, (PointerType, ReferenceType)):
        value = value.pointer_target()
    return value if isinstance(strip(value.type), StructType) else None


def vtables(value: Value, symbolize: Callable[[int], str | None]) -> list[VtableInfo]:
    """Every vtable of the object `value` (or that it points at); empty when it has none."""
    obj = object_of(value)
    if obj is None or obj.address is None or not is_dynamic_class(obj.type):
        return []
    found: dict[int, _Subobject] = {}
    _collect(obj, found, 0)
    return [_read(sub, symbolize) for sub in sorted(found.values(), key=lambda s: s.address)
            if sub.last_slot >= 0]  # fmt: skip


def _collect(obj: Value, found: dict[int, _Subobject], depth: int) -> None:
    t = strip(obj.type)
    if not isinstance(t, StructType) or not is_dynamic_class(t) or obj.address is None or depth > _MAX_DEPTH:
        return
    sub = found.setdefault(obj.address & MASK64, _Subobject(obj, obj.address & MASK64))
    if t.virtual_slots is not None:
        sub.last_slot = max(sub.last_slot, t.virtual_slots())
    for member in t.members:
        if member.is_base:
            _collect(obj.member_value(member), found, depth + 1)  # virtual bases: the vtable


def _read(sub: _Subobject, symbolize: Callable[[int], str | None]) -> VtableInfo:
    ctx = sub.value.ctx
    vptr = int.from_bytes(read(ctx, sub.address, 8), "little")
    slots = []
    for index in range(sub.last_slot + 1):
        try:
            pointer = Value(PointerType(sub.value.type), MemoryLoc((vptr + 8 * index) & MASK64), ctx)
            address = pointer.as_int() & MASK64
        except EvaluationError as error:
            slots.append(VtableSlot(None, error=str(error)))
            continue
        slots.append(VtableSlot(address, symbolize(address)))
    return VtableInfo(type_name(strip(sub.value.type)), vptr, sub.address, slots)
