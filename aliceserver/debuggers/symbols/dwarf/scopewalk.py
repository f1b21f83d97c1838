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
from aliceserver.debuggers.symbols.dwarf.abbrevs import AbbrevCache, AbbrevTable, UnitShape
from aliceserver.debuggers.symbols.dwarf.coderanges import _Walk
from aliceserver.debuggers.symbols.dwarf.rawread import uleb, unit_header, unit_length

_TAGS = {name: ENUM_DW_TAG["DW_TAG_" + name]
         for name in ("subprogram", "lexical_block", "inlined_subroutine", "namespace")}  # fmt: skip
_SCOPES = frozenset((_TAGS["subprogram"], _TAGS["lexical_block"], _TAGS["inlined_subroutine"]))
_AT = {name: ENUM_DW_AT["DW_AT_" + name]
       for name in ("sibling", "low_pc", "high_pc", "ranges", "addr_base")}  # fmt: skip
_CODE = frozenset((_AT["sibling"], _AT["low_pc"], _AT["high_pc"], _AT["ranges"]))
_SIBLING = frozenset((_AT["sibling"],))
_TOP = frozenset((_AT["sibling"], _AT["addr_base"]))
_RANGE_FORMS = frozenset((forms.SEC_OFFSET, forms.DATA4, forms.DATA8))

# (form, value) of DW_AT_ranges -> its [low, high) pairs; None: not readable here.
RangesOf = Callable[[int, int], list[tuple[int, int]] | None]
# A scope found: (unit-relative offset of its DIE, unit-relative offset of its parent).
Link = tuple[int, int]


class _Unknown(Exception):
    """Something scope_chain does not read: the caller walks the DIEs instead."""


def scope_chain(unit: bytes, cu_offset: int, abbrevs: AbbrevCache, addr: bytes, start: int,
                address: int, ranges_of: RangesOf) -> list[Link] | None:  # fmt: skip
    """The scopes _descend finds below the DIE at unit-relative `start` for `address`,
    outermost first, each with its parent; None where this cannot tell."""
    _length, osize, pos = unit_length(unit, 0)
    header = unit_header(unit, pos, osize)
    if header is None:
        return None
    version, asize, abbrev_offset, pos = header
    shape = UnitShape(0, len(unit), osize, asize, version)
    table = abbrevs.table(abbrev_offset, shape)
    walk = _Walk(unit, cu_offset, shape, addr, None)
    code, pos = uleb(unit, pos)
    top = table[code] if code else None
    if top is None:
        return None
    values, _pos = walk.attributes(top, pos, _TOP)
    base = values.get(_AT["addr_base"])
    walk.addr_base = base[1] if base is not None and base[1] >= 0 else None
    finder = _Finder(walk, table, address, ranges_of)
    try:
        return finder.descend(start)
    except _Unknown:
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
            raise _Unknown
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
                pos = self._past_children(values, child, pos)
        raise _Unknown

    def _holds(self, values: dict[int, tuple[int, int]]) -> bool:
        """dies.die_contains: low / high pc first, then DW_AT_ranges."""
        if _AT["low_pc"] in values and _AT["high_pc"] in values:
            span = self.walk.span(values)
            if span is None:
                raise _Unknown
            return span[0] <= self.address < span[1]
        found = values.get(_AT["ranges"])
        if found is None:
            return False
        form, value = found
        pairs = self.ranges_of(form, value) if form in _RANGE_FORMS and value >= 0 else None
        if pairs is None:
            raise _Unknown
        return any(low <= self.address < high for low, high in pairs)

    def _past_children(self, values: dict[int, tuple[int, int]], start: int, pos: int) -> int:
        """Where the DIE at `start` (its attributes read up to `pos`) ends, children and all."""
        sibling = values.get(_AT["sibling"])
        if sibling is not None and start < sibling[1] <= len(self.data):
            return sibling[1]
        data, table, depth = self.data, self.table, 1
        while depth:
            if pos >= len(data):
                raise _Unknown
            code, pos = uleb(data, pos)
            if code == 0:
                depth -= 1
                continue
            entry = table[code]
            if entry.fixed >= 0:
                pos += entry.fixed
            else:
                _values, pos = self.walk.attributes(entry, pos, frozenset())
            if entry.children:
                depth += 1
        return pos
