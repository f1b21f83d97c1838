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
from aliceserver.debuggers.source.memo import DescriptionKey, Memo, bytes_key
from aliceserver.debuggers.symbols.dwarf.locexpr import OptimizedOut
from aliceserver.debuggers.symbols.dwarf.types import BaseType, EnumType, PointerType, strip
from aliceserver.debuggers.symbols.dwarf.values import Value


def scalar_key(name: str, value: Value, how: tuple[object, ...]) -> DescriptionKey | None:
    """What the description of `value` depends on but its address; None where it depends
    on more (not a scalar, a bitfield, a composite location, bytes that cannot be read)."""
    location = value.location
    if isinstance(location, OptimizedOut):  # `<optimized out>`, no children: nothing is read
        if not isinstance(strip(value.type), (BaseType, EnumType, PointerType)):
            return None
        return (name, value.type, OptimizedOut, location.reason.encode() + b"\0error" * location.error, how)
    if not isinstance(strip(value.type), (BaseType, EnumType)):
        return None
    return bytes_key(name, value, how)


class ScalarDescriptions(Memo[VariableInfo]):
    """The descriptions made, by scalar_key."""

    def find(self, key: DescriptionKey, address: int | None) -> VariableInfo | None:
        found = self.get(key)
        if found is None or found.address == address:
            return found
        return replace(found, address=address)  # the same value in another place
