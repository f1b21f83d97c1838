"""Abbreviation tables (.debug_abbrev) for the raw DIE readers: the one parser and cache.

A unit uses few of the hundreds of entries its table may hold, so a table only notes
where each entry lies and compiles one (its forms' size codes for the unit's shape) on
first use; units of one file repeat the same entries, so compiled entries are shared by
their bytes. AbbrevCache keeps the tables of one .debug_abbrev.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from elftools.dwarf.enums import ENUM_DW_AT

from aliceserver.debuggers.symbols.dwarf import forms
from aliceserver.debuggers.symbols.dwarf.rawread import sleb, uleb

_AT_SIBLING = ENUM_DW_AT["DW_AT_sibling"]
_AT_DECLARATION = ENUM_DW_AT["DW_AT_declaration"]

Spec = tuple[int, int, int]  # (attribute, form, DW_FORM_implicit_const's value or 0)


@dataclass(frozen=True, slots=True)
class UnitShape:
    """What sizes a unit's attribute values: where it lies, offset and address sizes, version."""

    offset: int  # of the unit header
    end: int
    osize: int
    asize: int
    version: int


def size_code(form: int, unit: UnitShape) -> int:
    """forms.size_code of `form` in `unit`."""
    return forms.size_code(form, unit.osize, unit.asize, unit.version)


@dataclass(frozen=True, slots=True)
class Abbrev:
    tag: int
    children: bool
    attrs: tuple[tuple[int, int, int, int], ...]  # (attribute, form, size code, implicit)
    fixed: int  # the DIE's size after its code when every form is fixed, else -1
    declares: bool  # a declaration whatever its bytes say (DW_AT_declaration, flag_present)
    # (offset after the code, size) of a unit-relative DW_AT_sibling preceded by fixed-size
    # attributes only: read in place to jump over the DIE; None otherwise.
    sibling: tuple[int, int] | None


def skip_specs(abbrev: bytes, pos: int) -> int:
    """Past an entry's (attribute, form) list; single-byte ULEBs read inline (hot loop)."""
    while True:
        attr = abbrev[pos]
        if attr < 0x80:
            pos += 1
        else:
            attr, pos = uleb(abbrev, pos)
        form = abbrev[pos]
        if form < 0x80:
            pos += 1
        else:
            form, pos = uleb(abbrev, pos)
        if form == forms.IMPLICIT_CONST:
            _value, pos = sleb(abbrev, pos)
        elif attr == 0 and form == 0:
            return pos


def entry_positions(abbrev: bytes, offset: int) -> dict[int, tuple[int, int]]:
    """code -> (where its tag is, where the entry ends) of the table at `offset` (a code
    given twice: its last entry, as pyelftools reads it)."""
    at: dict[int, tuple[int, int]] = {}
    pos = offset
    data = abbrev
    while True:
        code = data[pos]
        if code < 0x80:
            pos += 1
        else:
            code, pos = uleb(data, pos)
        if code == 0:
            return at
        start = pos
        while data[pos] >= 0x80:  # the tag
            pos += 1
        pos = skip_specs(data, pos + 2)  # past the tag's last byte, has_children
        at[code] = (start, pos)


def read_entry(abbrev: bytes, pos: int) -> tuple[int, int, list[Spec], int]:
    """(tag, children flag, specs, where the next entry is) of the entry whose tag is at `pos`."""
    tag, pos = uleb(abbrev, pos)
    children = abbrev[pos]
    pos += 1
    specs: list[Spec] = []
    while True:
        attr, pos = uleb(abbrev, pos)
        form, pos = uleb(abbrev, pos)
        implicit = 0
        if form == forms.IMPLICIT_CONST:
            implicit, pos = sleb(abbrev, pos)
        if attr == 0 and form == 0:
            return tag, children, specs, pos
        specs.append((attr, form, implicit))


def iter_entries(abbrev: bytes, offset: int) -> Iterator[tuple[int, int, int, list[Spec]]]:
    """(code, tag, children flag, specs) of each entry of the table at `offset`, in order."""
    pos = offset
    while True:
        code, pos = uleb(abbrev, pos)
        if code == 0:
            return
        tag, children, specs, pos = read_entry(abbrev, pos)
        yield code, tag, children, specs


class AbbrevTable(dict[int, Abbrev]):
    """One abbreviation table, each entry compiled on first use (KeyError for a code the
    table lacks)."""

    def __init__(
        self, abbrev: bytes, offset: int, unit: UnitShape, shared: dict[bytes, Abbrev]
    ) -> None:
        super().__init__()
        self._abbrev = abbrev
        self._unit = unit
        self._shared = shared  # compiled entries by their bytes: units repeat the same shapes
        self._at = entry_positions(abbrev, offset)

    def codes_of(self, tag: int) -> list[int]:
        """The codes of the entries with `tag`, the others left uncompiled."""
        data = self._abbrev
        # (a one-byte tag compared as it is: a uleb call for each entry cost more)
        return [code for code, (start, _end) in self._at.items()
                if data[start] == tag < 0x80 or (data[start] >= 0x80 and uleb(data, start)[0] == tag)]  # fmt: skip

    def __missing__(self, code: int) -> Abbrev:
        where = self._at.get(code)
        if where is None:
            raise KeyError(f"abbreviation {code} not found")
        data = self._abbrev
        key = data[where[0] : where[1]]
        known = self._shared.get(key)
        if known is not None:
            self[code] = known
            return known
        tag, children, specs, _end = read_entry(data, where[0])
        attrs = [
            (attr, form, size_code(form, self._unit), implicit) for attr, form, implicit in specs
        ]
        sizes = [a[2] for a in attrs]
        fixed = sum(sizes) if all(size >= 0 for size in sizes) else -1
        declares = any(a[0] == _AT_DECLARATION and a[1] == forms.FLAG_PRESENT for a in attrs)
        entry = self[code] = self._shared[key] = Abbrev(
            tag, children != 0, tuple(attrs), fixed, declares, _sibling_in_place(attrs)
        )
        return entry


def _sibling_in_place(attrs: list[tuple[int, int, int, int]]) -> tuple[int, int] | None:
    offset = 0
    for attr, form, size, _implicit in attrs:
        if attr == _AT_SIBLING:
            return (offset, size) if form in forms.UNIT_REFS else None
        if size < 0:
            return None
        offset += size
    return None


class AbbrevCache:
    """The abbreviation tables of one .debug_abbrev, by offset and unit shape."""

    def __init__(self, abbrev: bytes) -> None:
        self.abbrev = abbrev
        self._tables: dict[tuple[int, int, int, int], AbbrevTable] = {}
        self._shapes: dict[tuple[int, int, int], dict[bytes, Abbrev]] = {}

    def table(self, offset: int, unit: UnitShape) -> AbbrevTable:
        """The table at `offset` as read by units of `unit`'s shape."""
        key = (offset, unit.osize, unit.asize, unit.version)
        table = self._tables.get(key)
        if table is None:
            shared = self._shapes.setdefault((unit.osize, unit.asize, unit.version), {})
            table = self._tables[key] = AbbrevTable(self.abbrev, offset, unit, shared)
        return table
