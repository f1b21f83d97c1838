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
import struct
from bisect import bisect_right
from itertools import accumulate
from typing import TYPE_CHECKING

from elftools.dwarf.enums import ENUM_DW_AT, ENUM_DW_TAG

from aliceserver.debuggers.symbols.dwarf import forms
from aliceserver.debuggers.symbols.dwarf.abbrevs import (
    Abbrev,
    AbbrevCache,
    AbbrevTable,
    UnitShape,
    size_code,
)
from aliceserver.debuggers.symbols.dwarf.forms import ADDRX_FORMS, INDIRECT, LEB, addrx, skip
from aliceserver.debuggers.symbols.dwarf.rawread import uleb, unit_header, unit_length
from aliceserver.debuggers.symbols.dwarf.units import read_aranges
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.sections import ElfSections

log = logging.getLogger(__name__)

# Tags dies.DwarfUnits._descend looks into at the top level.
_SCOPES = frozenset(ENUM_DW_TAG["DW_TAG_" + name]
                    for name in ("subprogram", "lexical_block", "inlined_subroutine"))  # fmt: skip
_TAG_NAMESPACE = ENUM_DW_TAG["DW_TAG_namespace"]
_AT_SIBLING, _AT_LOW_PC, _AT_HIGH_PC, _AT_RANGES, _AT_ADDR_BASE = (
    ENUM_DW_AT["DW_AT_" + name] for name in ("sibling", "low_pc", "high_pc", "ranges", "addr_base"))
_SIBLING = frozenset({_AT_SIBLING})
_CODE = frozenset({_AT_SIBLING, _AT_LOW_PC, _AT_HIGH_PC, _AT_RANGES})
_TOP = frozenset({_AT_SIBLING, _AT_ADDR_BASE})
_REFS = frozenset({*forms.UNIT_REFS, forms.REF_UDATA})  # unit-relative
_HIGH_OFFSETS = frozenset({forms.DATA1, forms.DATA2, forms.DATA4, forms.DATA8, forms.UDATA})  # low + n

Path = tuple[int, ...]  # unit-relative offsets: the namespaces around a DIE, then the DIE


# A scope of a unit: its path, and the code range [low, high) read from its attributes, or
# None where this does not read it (DW_AT_ranges, indexed addresses without .debug_addr).
Scope = tuple[Path, tuple[int, int] | None]


def candidates_at(scopes: list[Scope], address: int) -> list[Path]:
    """The paths of `scopes` (unit_scopes) that may hold `address`, in DIE order: those
    whose low / high pc hold it and those whose ranges were not read (the caller checks)."""
    return [path for path, span in scopes if span is None or span[0] <= address < span[1]]


class ScopeIndex:
    """A unit's scopes sorted by address: candidates_at's answers without a scan of them
    all (a unit of 10,000 functions, 10,000 breakpoints: a scan each was quadratic)."""

    def __init__(self, scopes: list[Scope]) -> None:
        self.scopes = scopes
        self._spans = sorted((span[0], span[1], order) for order, (_, span) in enumerate(scopes) if span is not None)
        self._lows = [low for low, _, _ in self._spans]
        # The highest end among the spans sorted up to each: below it, none can hold more.
        self._reach = list(accumulate((high for _, high, _ in self._spans), max))
        self._unread = [order for order, (_, span) in enumerate(scopes) if span is None]

    def candidates_at(self, address: int) -> list[Path]:
        """candidates_at(self.scopes, address), the same paths in the same order."""
        found = list(self._unread)
        index = bisect_right(self._lows, address) - 1
        while index >= 0 and self._reach[index] > address:
            _, high, order = self._spans[index]
            if high > address:
                found.append(order)
            index -= 1
        found.sort()
        return [self.scopes[order][0] for order in found]


def unit_scopes(
    unit: bytes, cu_offset: int, abbrev: bytes | AbbrevCache, addr: bytes = b""
) -> list[Scope]:
    """The top-level (and namespace-level) subprograms, lexical blocks and inlined calls of
    the unit whose bytes are `unit` (at `cu_offset` in .debug_info) that have code, in DIE
    order: read once, it answers for any address of the unit (the frames of a stack and
    the stops of a step are often in one unit). `addr`: .debug_addr, where DWARF 5's
    indexed addresses are read (without it their scopes' spans are None). `abbrev`: .debug_abbrev,
    or its AbbrevCache (kept by the caller: units share tables). Raises IndexError, KeyError,
    ValueError or TargetError on what it cannot read."""
    cache = abbrev if isinstance(abbrev, AbbrevCache) else AbbrevCache(abbrev)
    opened = open_unit(unit, cu_offset, cache, addr)
    if opened is None:
        return []  # a type unit holds no code
    walk, table, pos = opened
    if pos is None:
        return []
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
        if not scope and entry.sibling is not None and not (levels[-1] and entry.tag == _TAG_NAMESPACE):
            # Over a type, a variable...: to its sibling read in place (two thirds of the
            # DIEs read in a unit of CPython's; each attribute's form looked at costs more)
            at, size = entry.sibling
            next_sibling = int.from_bytes(unit[pos + at : pos + at + size], "little")
            if start < next_sibling <= len(unit):
                pos = next_sibling
                continue
        values, pos = walk.attributes(entry, pos, _CODE if scope else _SIBLING)
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


class Unreadable(Exception):
    """Something a walk of a unit's raw bytes does not read: its caller walks the DIEs
    through pyelftools instead."""


def open_unit(
    unit: bytes, cu_offset: int, abbrevs: AbbrevCache, addr: bytes
) -> tuple[_Walk, AbbrevTable, int | None] | None:
    """The raw reading of the unit whose bytes are `unit` (at `cu_offset` in .debug_info;
    `addr`: .debug_addr): its attribute reader (the top DIE's DW_AT_addr_base read), its
    abbreviation table, and where the top DIE's children start (None: it has none). None
    for a type unit, or a unit without a top DIE."""
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
    values, pos = walk.attributes(top, pos, _TOP)
    base = values.get(_AT_ADDR_BASE)
    walk.addr_base = base[1] if base is not None and base[1] >= 0 else None
    return walk, table, pos if top.children else None


class _Walk:
    """Attribute reading for one unit."""

    def __init__(
        self, data: bytes, cu_offset: int, unit: UnitShape, addr: bytes, addr_base: int | None
    ) -> None:
        self.data = data
        self.cu_offset = cu_offset
        self.unit = unit
        self.addr = addr  # .debug_addr
        self.addr_base = addr_base  # where the unit's table is in it; None: not read

    def attributes(
        self, entry: Abbrev, pos: int, wanted: frozenset[int]
    ) -> tuple[dict[int, tuple[int, int]], int]:
        """{attribute: (form, value)} of the DIE's `wanted` attributes (a value is -1 where
        this does not read it: blocks, strings); the position after the DIE's attributes."""
        data = self.data
        values: dict[int, tuple[int, int]] = {}
        for attr, form, size, _implicit in entry.attrs:
            if size == INDIRECT:
                while form == forms.INDIRECT_FORM:
                    form, pos = uleb(data, pos)
                size = size_code(form, self.unit)
            if attr not in wanted:
                pos = skip(data, pos, size)
                continue
            value = -1
            if size > 0:
                value = int.from_bytes(data[pos : pos + size], "little")
                pos += size
            elif size == LEB:
                value, pos = uleb(data, pos)
            else:
                pos = skip(data, pos, size)
            if attr == _AT_SIBLING and form == forms.REF_ADDR:
                value -= self.cu_offset  # section-relative: make it unit-relative
            elif attr == _AT_SIBLING and form not in _REFS:
                value = -1
            values[attr] = (form, value)
        return values, pos

    def past_children(
        self, table: AbbrevTable, values: dict[int, tuple[int, int]], start: int, pos: int
    ) -> int:
        """Where the DIE at `start` (its attributes `values` read up to `pos`) ends, children
        and all: at its DW_AT_sibling, else past each child by its abbreviation's sizes.
        Raises Unreadable where the unit ends first."""
        data = self.data
        sibling = values.get(_AT_SIBLING)
        if sibling is not None and start < sibling[1] <= len(data):
            return sibling[1]
        depth = 1
        while depth:
            if pos >= len(data):
                raise Unreadable
            code, pos = uleb(data, pos)
            if code == 0:
                depth -= 1
                continue
            entry = table[code]
            if entry.fixed >= 0:
                pos += entry.fixed
            else:
                _values, pos = self.attributes(entry, pos, frozenset())
            if entry.children:
                depth += 1
        return pos

    @staticmethod
    def has_code(values: dict[int, tuple[int, int]]) -> bool:
        """Whether a DIE with these attributes has code ranges (low and high pc, or
        DW_AT_ranges), as dies.die_ranges reads them."""
        return (_AT_LOW_PC in values and _AT_HIGH_PC in values) or _AT_RANGES in values

    def span(self, values: dict[int, tuple[int, int]]) -> tuple[int, int] | None:
        """[low, high) from DW_AT_low_pc / high_pc, as dies.die_ranges reads them first;
        None where the caller must read the ranges (DW_AT_ranges, an unreadable index)."""
        low_found = values.get(_AT_LOW_PC)
        high_found = values.get(_AT_HIGH_PC)
        if low_found is None or high_found is None or low_found[1] < 0 or high_found[1] < 0:
            return None
        low = self._address(*low_found)
        if low is None:
            return None
        form, high = high_found
        if form in _HIGH_OFFSETS:
            return low, low + high
        end = self._address(form, high)
        return None if end is None else (low, end)

    def _address(self, form: int, value: int) -> int | None:
        """An address attribute's value: itself, or entry `value` of the unit's .debug_addr
        table (clang's DWARF 5 addrx forms)."""
        if form == forms.ADDR:
            return value
        if form in ADDRX_FORMS and self.addr_base is not None:
            return addrx(self.addr, self.addr_base, value, self.unit.asize)
        return None


class RawAranges:
    """.debug_aranges: the unit holding an address, looked up as pyelftools' ARanges does
    (the entry starting last at or before it), without its zero-length entries."""

    def __init__(self, data: bytes) -> None:
        self._entries = sorted(read_aranges(data), key=lambda e: e[0])
        self._lows = [low for low, _high, _cu in self._entries]
        self.units = frozenset(cu for _low, _high, cu in self._entries)  # those with code listed

    def cu_offset_at_addr(self, address: int) -> int | None:
        i = bisect_right(self._lows, address) - 1
        if i < 0:
            return None
        low, high, cu = self._entries[i]
        return cu if low <= address < high else None


def unit_offsets(sections: ElfSections) -> list[int]:
    """Offsets of every unit in .debug_info, from their lengths alone (pyelftools' iter_CUs
    parses each header: 0.15 s at huge_program's 2,200 units); a truncated one ends them."""
    offsets: list[int] = []
    pos, end = 0, sections.size(".debug_info")
    while pos + 4 <= end:
        try:
            length, _osize, body = unit_length(sections.read(".debug_info", pos, 12), 0)
        except (struct.error, TargetError):
            break
        offsets.append(pos)
        pos += body + length
    return offsets
