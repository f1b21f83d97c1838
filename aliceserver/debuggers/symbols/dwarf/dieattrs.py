"""Reading a DIE's attributes through its abstract origin / specification chain (inlined
copies and out-of-line definitions carry few attributes of their own)."""

from __future__ import annotations

from typing import Any

from elftools.dwarf.die import DIE


def attr_value(die: DIE, name: str) -> Any:
    attr = die.attributes.get(name)
    return None if attr is None else attr.value


def die_name(die: DIE) -> str | None:
    """DW_AT_name, following DW_AT_abstract_origin / DW_AT_specification."""
    seen = 0
    while die is not None and seen < 8:
        raw = attr_value(die, "DW_AT_name")
        if raw is not None:
            return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        origin = None
        for ref in ("DW_AT_abstract_origin", "DW_AT_specification"):
            if ref in die.attributes:
                origin = die.get_DIE_from_attribute(ref)
                break
        if origin is None:
            return None
        die = origin
        seen += 1
    return None


def resolved_attr(die: DIE, name: str) -> Any:
    """An attribute of `die` or of its abstract origin / specification (for inlined copies)."""
    carrier = origin_die(die, name)
    return None if carrier is None else carrier.attributes[name].value


def origin_die(die: DIE, name: str) -> DIE | None:
    """The DIE that carries attribute `name` (the DIE itself or its abstract origin chain)."""
    for _ in range(8):
        if name in die.attributes:
            return die
        for ref in ("DW_AT_abstract_origin", "DW_AT_specification"):
            if ref in die.attributes:
                die = die.get_DIE_from_attribute(ref)
                break
        else:
            return None
    return None
