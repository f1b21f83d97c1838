"""Descriptions kept across stops by what they follow from: a variable's name, its declared
type, its location's kind, its bytes and how it is described (scalarmemo.py keeps whole
descriptions, pointermemo.py the shape a pointer's text is rebuilt from)."""

from __future__ import annotations

from typing import Generic, TypeVar

from aliceserver.debuggers.symbols.dwarf.locexpr import (
    EvaluationError,
    ImplicitLoc,
    MemoryLoc,
    RegisterLoc,
)
from aliceserver.debuggers.symbols.dwarf.values import Value
from aliceserver.errors import TargetError

_MAX_KEPT = 4096  # entries kept; all are dropped when there are more

# (name, the declared type, the location's kind, the bytes, how it is described)
DescriptionKey = tuple[str, object, type, bytes, tuple[object, ...]]

Kept = TypeVar("Kept")


def bytes_key(name: str, value: Value, how: tuple[object, ...]) -> DescriptionKey | None:
    """The key of a value described from its type and bytes alone; None for a bitfield, a
    composite location or bytes that cannot be read."""
    location = value.location
    if value.bit_size or not isinstance(location, (MemoryLoc, RegisterLoc, ImplicitLoc)):
        return None
    try:
        data = value.data()
    except (EvaluationError, TargetError):
        return None
    # The type object itself: the key keeps it alive, so no other type takes its place
    return (name, value.type, type(location), data, how)


class Memo(Generic[Kept]):
    """What was kept, by key; it outlives the stop."""

    def __init__(self) -> None:
        self._kept: dict[DescriptionKey, Kept] = {}

    def get(self, key: DescriptionKey) -> Kept | None:
        return self._kept.get(key)

    def keep(self, key: DescriptionKey, kept: Kept) -> Kept:
        if len(self._kept) >= _MAX_KEPT:
            self._kept.clear()
        self._kept[key] = kept
        return kept

    def clear(self) -> None:
        self._kept.clear()
