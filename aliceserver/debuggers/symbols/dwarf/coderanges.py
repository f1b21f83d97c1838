"""Code ranges read from raw DWARF bytes: range lists, address ranges, and which top-level
DIEs of a unit may hold an address.

Finding the function around a pc through pyelftools parses every top-level DIE of its unit
(15-20 ms for one of CPython's big units, most of them types and declarations);
unit_scopes reads only the code ranges of subprograms and jumps over everything else (by
DW_AT_sibling, or by abbreviation sizes), once per unit, and candidates_at picks those that
may hold an address, so pyelftools then parses just the DIEs they name. pyelftools' .debug_aranges reader costs a construct parse per entry: RawAranges
reads the same table with struct.
"""

from __future__ import annotations

import logging
from bisect import bisect_right

from aliceserver.debuggers.symbols.dwarf.globalnames import (
    _BLOCK1,
    _BLOCK2,
    _BLOCK4,
    _BLOCK_LEB,
    _CSTRING,
    _FORM_INDIRECT,
    _INDIRECT,
    _LEB,
    _Abbrev,
    _AbbrevTable,
    _size_code,
    _Unit,
)
from aliceserver.debuggers.symbols.dwarf.lines import uleb, unit_length
from aliceserver.debuggers.symbols.dwarf.units import read_aranges, unit_header

log = logging.getLogger(__name__)

# Tags dies.DwarfUnits._descend looks into at the top level.
_SCOPES = frozenset({0x2E, 0x0B, 0x1D})  # subprogram, lexical_block, inlined_subroutine
_TAG_NAMESPACE = 0x39
_AT_SIBLING, _AT_LOW_PC, _AT_HIGH_PC, _AT_RANGES = 0x01, 0x11, 0x12, 0x55
_FORM_ADDR, _FORM_REF_ADDR = 0x01, 0x10
_REFS = frozenset({0x11, 0x12, 0x13, 0x14, 0x15})  # ref1..ref8, ref_udata: unit-relative
_HIGH_OFFSETS = frozenset({0x05, 0x06, 0x07, 0x0B, 0x0F})  # data2/4/8/1, udata: low + n

Path = tuple[int, ...]  # unit-relative offsets: the namespaces around a DIE, then the DIE


# A scope of a unit: its path, and the code range [low, high) read from its attributes, or
# None where this does not read it (DW_AT_ranges, indexed addresses).
Scope = tuple[Path, tuple[int, int] | None]


def candidates_at(scopes: list[Scope], address: int) -> list[Path]:
    """The paths of `scopes` (unit_scopes) that may hold `address`, in DIE order: those
    whose low / high pc hold it and those whose ranges were not read (the caller checks)."""
    return [path for path, span in scopes if span is None or span[0] <= address < span[1]]


def unit_scopes(unit: bytes, cu_offset: int, abbrev: bytes) -> list[Scope]:
    """The top-level (and namespace-level) subprograms, lexical blocks and inlined calls of
    the unit whose bytes are `unit` (at `cu_offset` in .debug_info) that have code, in DIE
    order: read once, it answers for any address of the unit (the frames of a stack and
    the stops of a step are often in one unit). Raises IndexError, KeyError, ValueError or
    TargetError on what it cannot read."""
    _length, osize, pos = unit_length(unit, 0)
    header = unit_header(unit, pos, osize)
    if header is None:
        return []  # a type unit holds no code
    version, asize, abbrev_offset, pos = header
    table = _AbbrevTable(abbrev, abbrev_offset, _Unit(0, len(unit), osize, asize, version), {})
    walk = _Walk(unit, cu_offset, osize, asize, version)
    code, pos = uleb(unit, pos)
    top = table[code] if code else None
    if top is None or not top.children:
        return []
    _values, pos = walk.attributes(top, pos, ranges=False)
    found: list[Scope] = []
    namespaces: list[int] = []
    levels = [True]  # per open level: whether its children are looked at
    while pos < len(unit) and levels:
        start = pos
        code, pos = uleb(unit, pos)
        if code == 0:
            if levels.pop() and levels:  # the end of a namespace's children
                namespaces.pop()
            continue
        entry = table[code]
        scope = levels[-1] and entry.tag in _SCOPES
        if not scope and entry.fixed >= 0 and not entry.children:
            pos += entry.fixed
            continue
        values, pos = walk.attributes(entry, pos, ranges=scope)
        if scope and walk.has_code(values):
            found.append(((*namespaces, start), walk.span(values)))
        if not entry.children:
            continue
        if levels[-1] and entry.tag == _TAG_NAMESPACE:
            namespaces.append(start)
            levels.append(True)
            continue
        sibling = values.get(_AT_SIBLING)
        if sibling is not None and start < sibling[1] <= len(unit):
            pos = sibling[1]
        else:
            levels.append(False)
    return found


class _Walk:
    """Attribute reading for one unit."""

    def __init__(self, data: bytes, cu_offset: int, osize: int, asize: int, version: int) -> None:
        self.data = data
        self.cu_offset = cu_offset
        self.unit = _Unit(0, len(data), osize, asize, version)

    def attributes(
        self, entry: _Abbrev, pos: int, ranges: bool
    ) -> tuple[dict[int, tuple[int, int]], int]:
        """{attribute: (form, value)} of the DIE's sibling link and, with `ranges`, its
        code range attributes (a value is -1 where this does not read it); the position
        after the DIE's attributes."""
        data = self.data
        values: dict[int, tuple[int, int]] = {}
        for attr, form, size, _implicit in entry.attrs:
            if size == _INDIRECT:
                while form == _FORM_INDIRECT:
                    form, pos = uleb(data, pos)
                size = _size_code(form, self.unit)
            keep = attr == _AT_SIBLING or (ranges and attr in (_AT_LOW_PC, _AT_HIGH_PC, _AT_RANGES))
            if not keep:
                pos = self._skip(size, pos)
                continue
            value = -1
            if size > 0:
                value = int.from_bytes(data[pos : pos + size], "little")
                pos += size
            elif size == _LEB:
                value, pos = uleb(data, pos)
            else:
                pos = self._skip(size, pos)
            if attr == _AT_SIBLING and form == _FORM_REF_ADDR:
                value -= self.cu_offset  # section-relative: make it unit-relative
            elif attr == _AT_SIBLING and form not in _REFS:
                value = -1
            values[attr] = (form, value)
        return values, pos

    def _skip(self, size: int, pos: int) -> int:
        data = self.data
        if size >= 0:
            return pos + size
        if size == _LEB:
            while data[pos] >= 0x80:
                pos += 1
            return pos + 1
        if size == _CSTRING:
            return data.index(b"\0", pos) + 1
        if size == _BLOCK_LEB:
            length, pos = uleb(data, pos)
            return pos + length
        width = {_BLOCK1: 1, _BLOCK2: 2, _BLOCK4: 4}[size]
        return pos + width + int.from_bytes(data[pos : pos + width], "little")

    @staticmethod
    def has_code(values: dict[int, tuple[int, int]]) -> bool:
        """Whether a DIE with these attributes has code ranges (low and high pc, or
        DW_AT_ranges), as dies.die_ranges reads them."""
        return (_AT_LOW_PC in values and _AT_HIGH_PC in values) or _AT_RANGES in values

    @staticmethod
    def span(values: dict[int, tuple[int, int]]) -> tuple[int, int] | None:
        """[low, high) from DW_AT_low_pc / high_pc, as dies.die_ranges reads them first;
        None where the caller must read the ranges (DW_AT_ranges, an indexed address)."""
        low = values.get(_AT_LOW_PC)
        high = values.get(_AT_HIGH_PC)
        if low is None or high is None or low[0] != _FORM_ADDR or low[1] < 0 or high[1] < 0:
            return None
        if high[0] == _FORM_ADDR:
            return low[1], high[1]
        if high[0] in _HIGH_OFFSETS:
            return low[1], low[1] + high[1]
        return None


class RawAranges:
    """.debug_aranges: the unit holding an address, looked up as pyelftools' ARanges does
    (the entry starting last at or before it), without its zero-length entries."""

    def __init__(self, data: bytes) -> None:
        self._entries = sorted(read_aranges(data), key=lambda e: e[0])
        self._lows = [low for low, _high, _cu in self._entries]

    def cu_offset_at_addr(self, address: int) -> int | None:
        i = bisect_right(self._lows, address) - 1
        if i < 0:
            return None
        low, high, cu = self._entries[i]
        return cu if low <= address < high else None
