"""The methods of a function's local classes and lambdas, read from a unit's raw bytes.

g++ defines a local class's methods and a lambda's operator() inside the class body, under
the enclosing function's DIE, with code of their own outside that function's range:
coderanges.unit_scopes, which jumps over each function's children, does not see them. This
walk enters functions and lexical blocks, and the classes inside them, and keeps the
subprograms with code found there, with their paths (as unit_scopes' Scope). It reads every
DIE of those functions, so dies.py asks for it only when no top-level scope holds a pc,
once per unit.
"""

from __future__ import annotations

import logging
import struct

from elftools.dwarf.enums import ENUM_DW_AT, ENUM_DW_TAG

from aliceserver.debuggers.symbols.dwarf.abbrevs import AbbrevCache
from aliceserver.debuggers.symbols.dwarf.coderanges import Path, Scope, ScopeIndex, open_unit
from aliceserver.debuggers.symbols.dwarf.rawread import uleb
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
from aliceserver.errors import TargetError

log = logging.getLogger(__name__)

_TAG = {name: ENUM_DW_TAG["DW_TAG_" + name]
        for name in ("subprogram", "lexical_block", "namespace", "class_type", "structure_type",
                     "union_type")}  # fmt: skip
_AT_SIBLING = ENUM_DW_AT["DW_AT_sibling"]
_SIBLING = frozenset((_AT_SIBLING,))
_CODE = frozenset(ENUM_DW_AT["DW_AT_" + name] for name in ("sibling", "low_pc", "high_pc", "ranges"))
_CODE_TAGS = frozenset((_TAG["subprogram"], _TAG["lexical_block"]))
_CLASSES = frozenset((_TAG["class_type"], _TAG["structure_type"], _TAG["union_type"]))

_UNITS_KEPT = 256


class LocalScopes:
    """local_scopes of the units asked about, indexed by address (one walk per unit)."""

    def __init__(self) -> None:
        self._units: dict[int, ScopeIndex] = {}

    def paths_at(self, cu_offset: int, size: int, address: int, raw: ElfSections | None,
                 abbrevs: AbbrevCache | None, addr: bytes) -> list[Path]:  # fmt: skip
        """The paths of the unit's local methods that may hold link-time `address`."""
        found = self._units.get(cu_offset)
        if found is None:
            if raw is None or abbrevs is None:
                return []
            try:
                scopes = local_scopes(raw.read(".debug_info", cu_offset, size), cu_offset, abbrevs, addr)
            except (IndexError, KeyError, ValueError, struct.error, TargetError) as exc:
                log.debug("local classes of the unit at %#x unread: %s", cu_offset, exc)
                scopes = []
            if len(self._units) >= _UNITS_KEPT:
                self._units.pop(next(iter(self._units)))
            found = self._units[cu_offset] = ScopeIndex(scopes)
        return found.candidates_at(address)


def local_scopes(unit: bytes, cu_offset: int, abbrevs: AbbrevCache, addr: bytes = b"") -> list[Scope]:
    """Subprograms with code under a class under a function (at any depth), in DIE order.
    Raises IndexError, KeyError, ValueError or TargetError on what it cannot read."""
    opened = open_unit(unit, cu_offset, abbrevs, addr)
    if opened is None or opened[2] is None:
        return []
    walk, table, pos = opened
    assert pos is not None
    found: list[Scope] = []
    # Open DIEs with children: (offset, tag, whether its children are looked at).
    stack: list[tuple[int, int, bool]] = [(0, 0, True)]
    while pos < len(unit) and stack:
        start = pos
        code, pos = uleb(unit, pos)
        if code == 0:
            stack.pop()
            continue
        entry = table[code]
        parent_tag, looked = stack[-1][1], stack[-1][2]
        in_code = any(tag in _CODE_TAGS for _, tag, _ in stack)
        enter = looked and (
            entry.tag == _TAG["namespace"]
            or entry.tag in _CODE_TAGS
            or (entry.tag in _CLASSES and in_code)
        )
        if not enter and entry.fixed >= 0 and not entry.children:
            pos += entry.fixed
            continue
        values, pos = walk.attributes(entry, pos, _CODE if enter else _SIBLING)
        if (
            entry.tag == _TAG["subprogram"]
            and parent_tag in _CLASSES
            and in_code
            and walk.has_code(values)
        ):
            path = tuple(offset for offset, _, _ in stack[1:]) + (start,)
            found.append((path, walk.span(values)))
        if not entry.children:
            continue
        if enter:
            stack.append((start, entry.tag, True))
            continue
        jump = values.get(_AT_SIBLING)
        if jump is not None and start < jump[1] <= len(unit):
            pos = jump[1]
        else:
            stack.append((start, entry.tag, False))
    return found
