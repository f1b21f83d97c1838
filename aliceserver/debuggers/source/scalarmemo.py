"""Descriptions of scalar variables kept across stops, by their type and bytes.

A loop's next stop shows the same `int i`, `double total`, `enum op` as the last one or
one whose bytes differ; describing one (its text, its type's name, its children's count,
the checks for printers and dynamic types) costs 15-20 us of a variables request, reading
its bytes about 2. An integer, floating-point, character, boolean or enum value's
description follows from its type and its bytes alone (nothing it points to is read), so
the bytes read again at a later stop find it when they are the same; a value optimized
out (an -O3 build's, at most stops; a pointer's too) by its type alone. Not used where
pretty printers are loaded: a printer may take any type.
"""

from __future__ import annotations

from dataclasses import replace

from aliceserver.debuggers.model import VariableInfo
from aliceserver.debuggers.symbols.dwarf.locexpr import (
    EvaluationError,
    ImplicitLoc,
    MemoryLoc,
    OptimizedOut,
    RegisterLoc,
)
from aliceserver.debuggers.symbols.dwarf.types import BaseType, EnumType, PointerType, strip
from aliceserver.debuggers.symbols.dwarf.values import Value
from aliceserver.errors import TargetError

_MAX_KEPT = 4096  # descriptions kept; all are dropped when there are more

# (name, the declared type, the location's kind, the bytes, how it is described)
ScalarKey = tuple[str, object, type, bytes, tuple[object, ...]]


def scalar_key(name: str, value: Value, how: tuple[object, ...]) -> ScalarKey | None:
    """What the description of `value` depends on but its address; None where it depends
    on more (not a scalar, a bitfield, a composite location, bytes that cannot be read)."""
    location = value.location
    if isinstance(location, OptimizedOut):  # `<optimized out>`, no children: nothing is read
        if not isinstance(strip(value.type), (BaseType, EnumType, PointerType)):
            return None
        return (name, value.type, OptimizedOut, location.reason.encode(), how)
    if value.bit_size or not isinstance(location, (MemoryLoc, RegisterLoc, ImplicitLoc)):
        return None
    if not isinstance(strip(value.type), (BaseType, EnumType)):
        return None
    try:
        data = value.data()
    except (EvaluationError, TargetError):
        return None
    # The type object itself: the key keeps it alive, so no other type takes its place
    return (name, value.type, type(location), data, how)


class ScalarDescriptions:
    """The descriptions made, by scalar_key; they outlive the stop."""

    def __init__(self) -> None:
        self._made: dict[ScalarKey, VariableInfo] = {}

    def find(self, key: ScalarKey, address: int | None) -> VariableInfo | None:
        found = self._made.get(key)
        if found is None or found.address == address:
            return found
        return replace(found, address=address)  # the same value in another place

    def keep(self, key: ScalarKey, info: VariableInfo) -> VariableInfo:
        if len(self._made) >= _MAX_KEPT:
            self._made.clear()
        self._made[key] = info
        return info

    def clear(self) -> None:
        self._made.clear()
