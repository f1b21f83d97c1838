"""The nested scopes around an address inside a function, read from raw DWARF bytes.

Below a subprogram, dies.DwarfUnits._descend walks pyelftools' children level by level:
in a big -O3 function (CPython's _PyEval_EvalFrameDefault) that parses thousands of DIEs
(variables, call sites, inlined copies elsewhere) to find the few lexical blocks and
inlined calls holding the pc, 5-15 ms per frame. scope_chain finds the same DIEs with the
same rules from the unit's bytes, reading only the code ranges of scope DIEs and jumping
over everything else (by DW_AT_sibling, or by abbreviation sizes); pyelftools then parses
just the DIEs of the chain. Where it meets what it does not read (an indexed range list,
an address it cannot resolve) it answers None and the caller walks the DIEs as before.
"""

from __future__ import annotations

from collections.abc import Callable

from elftools.dwarf.enums import ENUM_DW_AT, ENUM_DW_TAG

from aliceserver.debuggers.symbols.dwarf import forms
from aliceserver.debuggers.symbols.dwarf.abbrevs import AbbrevCache, AbbrevTable
from aliceserver.debuggers.symbols.dwarf.coderanges import Unreadable, _Walk, open_unit
from aliceserver.debuggers.symbols.dwarf.rawread import uleb

_TAGS = {name: ENUM_DW_TAG["DW_TAG_" + name]
         for name in ("subprogram", "lexical_block", "inlined_subroutine", "namespace")}  # fmt: skip
_SCOPES = frozenset((_TAGS["subprogram"], _TAGS["lexical_block"], _TAGS["inlined_subroutine"]))
_AT = {name: ENUM_DW_AT["DW_AT_" + name]
       for name in ("sibling", "low_pc", "high_pc", "ranges")}  # fmt: skip
_CODE = frozenset((_AT["sibling"], _AT["low_pc"], _AT["high_pc"], _AT["ranges"]))
_SIBLING = frozenset((_AT["sibling"],))
_RANGE_FORMS = frozenset((forms.SEC_OFFSET, forms.DATA4, forms.DATA8))

# (form, value) of DW_AT_ranges -> its [low, high) pairs; None: not readable here.
RangesOf = Callable[[int, int], list[tuple[int, int]] | None]
# A scope found: (unit-relative offset of its DIE, unit-relative offset of its parent).
Link = tuple[int, int]


def scope_chain(unit: bytes, cu_offset: int, abbrevs: AbbrevCache, addr: bytes, start: int,
                address: int, ranges_of: RangesOf) -> list[Link] | None:  # fmt: skip
    """The scopes _descend finds below the DIE at unit-relative `start` for `address`,
    outermost first, each with its parent; None where this cannot tell."""
    opened = open_unit(unit, cu_offset, abbrevs, addr)
    if opened is None:
        return None
    walk, table, _children = opened
    finder = _Finder(walk, table, address, ranges_of)
    try:
        return finder.descend(start)
    except Unreadable:
        return None


class _Finder:
    def __init__(self, walk: _Walk, table: AbbrevTable, address: int, ranges_of: RangesOf) -> None:
        self.walk = walk
        self.data = walk.data
        self.table = table
        self.address = address
        self.ranges_of = ranges_of

    def descend(self, start: int) -> list[Link]:
        """As _descend: level by level, the first scope child holding the address; a
        namespace child's own finding ends the walk."""
        chain: list[Link] = []
        current = start
        while True:
            found, nested = self._child_holding(current)
            if nested is not None:
                chain.extend(nested)
                return chain
            if found is None:
                return chain
            chain.append((found, current))
            current = found

    def _child_holding(self, parent: int) -> tuple[int | None, list[Link] | None]:
        """(the first scope child of `parent` holding the address, or the chain found under
        a namespace child first)."""
        data = self.data
        code, pos = uleb(data, parent)
        entry = self.table[code] if code else None
        if entry is None:
            raise Unreadable
        if not entry.children:
            return None, None
        _values, pos = self.walk.attributes(entry, pos, frozenset())
        while pos < len(data):
            child = pos
            code, pos = uleb(data, pos)
            if code == 0:
                return None, None
            entry = self.table[code]
            scope = entry.tag in _SCOPES
            if not scope and entry.fixed >= 0 and not entry.children:
                pos += entry.fixed
                continue
            values, pos = self.walk.attributes(entry, pos, _CODE if scope else _SIBLING)
            if scope and self._holds(values):
                return child, None
            if entry.tag == _TAGS["namespace"] and entry.children:
                nested = self.descend(child)
                if nested:
                    return None, nested
            if entry.children:
                pos = self.walk.past_children(self.table, values, child, pos)
        raise Unreadable

    def _holds(self, values: dict[int, tuple[int, int]]) -> bool:
        """dies.die_contains: low / high pc first, then DW_AT_ranges."""
        if _AT["low_pc"] in values and _AT["high_pc"] in values:
            span = self.walk.span(values)
            if span is None:
                raise Unreadable
            return span[0] <= self.address < span[1]
        found = values.get(_AT["ranges"])
        if found is None:
            return False
        form, value = found
        pairs = self.ranges_of(form, value) if form in _RANGE_FORMS and value >= 0 else None
        if pairs is None:
            raise Unreadable
        return any(low <= self.address < high for low, high in pairs)
