"""Every function's inlined copies (and definitions) at once: one walk for many names.

`break NAME` finds NAME's copies by a byte search of .debug_info for the name, then a walk
of the few units that may define it (inlines.py): some 40 ms a name on CPython, so
`rbreak .` over its 5,400 functions spent minutes in them in a first session (no answer
remembered yet). When many names are wanted together, one raw walk of every unit answers
them all: each DW_TAG_inlined_subroutine's abstract origin (the end of its chain, as
inlines._abstract_origin follows it) -> its ranges, and each top-level or namespace-level
subprogram shaped as an abstract instance (inlines._is_abstract_function) -> its qualified
name. A name's answer is then what InlineFinder.sites gives: the copies of the abstract
instances whose qualified name `break NAME` matches (names.lookup_keys) and whose own
name is the query's last component (the only units inline_sites' byte search walks), in
their units and in LTO units, ranges and entry read as DwarfUnits.die_ranges does. A name
no abstract instance matches has none, so the map answers every name: compared with
inline_sites name by name, the same answers for CPython's 8,506 names, libc's 3,671,
ld.so's 231 and the C++ and LTO programs tried (0.9-1.2 s for CPython's walk, where the
searches took 157 s of CPU). The same walk answers outofline.py's search for definitions
the symbol table lacks (each of a program's names is searched for in ld.so's debug file):
each top-level or namespace-level subprogram with code and no DW_AT_declaration, named
from its own unit. The walk reads only code
subtrees' DIEs (subprograms, lexical blocks, inlined calls, namespaces) and jumps over the
rest by DW_AT_sibling or abbreviation sizes. Where it meets what it does not read (dwz's
imported units, indexed strings or range lists, references into another file) it gives
up (None) and each name is searched for as before.
Addresses are link-time.
"""

from __future__ import annotations

import logging
import struct
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from elftools.dwarf.enums import ENUM_DW_AT, ENUM_DW_TAG

from aliceserver.debuggers.symbols.dwarf import forms, names
from aliceserver.debuggers.symbols.dwarf.abbrevs import (
    Abbrev,
    AbbrevCache,
    AbbrevTable,
    UnitShape,
    size_code,
)
from aliceserver.debuggers.symbols.dwarf.altfile import shares_units
from aliceserver.debuggers.symbols.dwarf.coderanges import unit_offsets
from aliceserver.debuggers.symbols.dwarf.dieattrs import die_name
from aliceserver.debuggers.symbols.dwarf.dies import DwarfUnits, _scope_of_spec
from aliceserver.debuggers.symbols.dwarf.forms import (
    ADDRX_FORMS,
    CSTRING,
    INDIRECT,
    LEB,
    addrx,
    skip,
)
from aliceserver.debuggers.symbols.dwarf.inlines import InlineSite, mention_needles, query_leaf
from aliceserver.debuggers.symbols.dwarf.rangelists import v4_ranges, v5_ranges
from aliceserver.debuggers.symbols.dwarf.rawread import uleb, unit_header, unit_length
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
from aliceserver.errors import TargetError

log = logging.getLogger(__name__)


def _tag(name: str) -> int:
    return int(ENUM_DW_TAG["DW_TAG_" + name])


def _at(name: str) -> int:
    return int(ENUM_DW_AT["DW_AT_" + name])


_SUBPROGRAM, _LEXICAL, _INLINED, _NAMESPACE = (_tag(t) for t in ("subprogram", "lexical_block",
                                                                 "inlined_subroutine", "namespace"))  # fmt: skip
_IMPORTED, _PARTIAL = _tag("imported_unit"), _tag("partial_unit")
_WALKED = frozenset((_SUBPROGRAM, _LEXICAL, _INLINED, _NAMESPACE))  # InlineFinder._walk's
_SIBLING, _NAME, _ORIGIN, _LOW, _HIGH, _RANGES, _ADDR_BASE, _INLINE = (
    _at(a)
    for a in (
        "sibling",
        "name",
        "abstract_origin",
        "low_pc",
        "high_pc",
        "ranges",
        "addr_base",
        "inline",
    )
)
_NOT_ABSTRACT = frozenset(
    _at(a) for a in ("low_pc", "ranges", "declaration", "specification", "abstract_origin")
)
_BY_NAME_ONLY = frozenset((_at("specification"), _ORIGIN))  # then named by pyelftools
_COPY_WANTED = frozenset((_ORIGIN, _LOW, _HIGH, _RANGES))
_SPECIFICATION = _at("specification")
_SUBPROGRAM_WANTED = frozenset((_ORIGIN, _NAME, _SPECIFICATION, _LOW, _HIGH, _RANGES))
_DECLARATION = _at("declaration")
_SIBLING_ONLY = frozenset((_SIBLING,))
_NOTHING: frozenset[int] = frozenset()
_UNIT_WANTED = frozenset((_LOW, _ADDR_BASE))
_REFS = frozenset((*forms.UNIT_REFS, forms.REF_UDATA))
_RANGE_FORMS = frozenset((forms.SEC_OFFSET, forms.DATA4, forms.DATA8))
_SIMPLE_NAMES = frozenset((forms.STRING, forms.STRP, forms.LINE_STRP))

MANY = 64  # names set together from which one walk costs less than a search each
Ranges = tuple[tuple[int, int], ...]
# (unit offset, DIE offset, namespace DIE offsets around it) -> its qualified name and
# its own (dies.die_name), by pyelftools (dies.DwarfUnits' top-level names); None: unnamed.
NameOf = Callable[[int, int, tuple[int, ...]], tuple[str, str] | None]


class Unreadable(Exception):
    """What the walk does not read: every name is searched for alone instead."""


@dataclass(slots=True)
class _Abstract:
    unit: int
    offset: int
    name: str | None  # its DW_AT_name when that is all its qualified name is; else None
    namespaces: tuple[int, ...]


Definition = tuple[str, int, int]  # outofline.Definition: (name as gdb shows it, entry, its range's end)


class InlineMap:
    """Every name's inlined copies in one file, and its definitions with code that
    outofline.py looks for (link-time addresses)."""

    def __init__(self, sections: ElfSections, by_key: dict[str, list[InlineSite]],
                 defined: dict[str, list[Definition]]) -> None:  # fmt: skip
        self._sections = sections
        self._by_key = by_key
        self._defined = defined

    def sites(self, query: str) -> list[InlineSite]:
        """InlineFinder's answer for `break QUERY` (inlines.inline_sites, uncached)."""
        key, _params = names.normalize_query(query)
        return list(self._by_key.get(key, ())) if key else []

    def definitions(self, query: str) -> list[Definition]:
        """outofline.defined_functions' answer for QUERY (uncached), sorted by address."""
        key, _params = names.normalize_query(query)
        found = self._defined.get(key, []) if key else []
        if found and mention_needles(self._sections, query_leaf(key)) is None:
            return []  # too common a string for outofline's search: it looks nowhere
        return list(found)


def build(sections: ElfSections, lto_units: list[int], name_of: NameOf) -> InlineMap | None:
    """The map of `sections`' DWARF; None where the walk cannot read it."""
    if shares_units(sections):
        return None  # dwz: a unit's DIEs are in others too
    try:
        walk = _Walker(sections)
        for offset in unit_offsets(sections):
            walk.unit(offset)
        lto = frozenset(lto_units)
        return InlineMap(sections, walk.answers(lto, name_of), walk.definitions(name_of))
    except (Unreadable, TargetError, IndexError, KeyError, ValueError, struct.error) as exc:
        log.debug("inlined copies not mapped in one walk: %s", exc)
        return None


class _Walker:
    def __init__(self, sections: ElfSections) -> None:
        self.info = sections.get(".debug_info")
        self.str = sections.get(".debug_str") if sections.has(".debug_str") else b""
        self.line_str = sections.get(".debug_line_str") if sections.has(".debug_line_str") else b""
        self.addr = sections.get(".debug_addr") if sections.has(".debug_addr") else b""
        self._sections = sections
        self._lists: dict[str, bytes] = {}
        self.abbrevs = AbbrevCache(sections.get(".debug_abbrev"))
        self.abstract: list[_Abstract] = []
        self.defined: list[tuple[_Abstract, int, int]] = []  # definitions with code, low, high
        self._simple: dict[int, str] = {}  # abstract instances' names, as _name gives them
        self.origin_of: dict[int, int] = {}  # a walked DIE's abstract origin
        # (the copy's own abstract origin, unit of the copy, its ranges), in walk order
        self.copies: list[tuple[int, int, Ranges]] = []
        self._origin_named: dict[int, int] = {}  # a definition -> its abstract origin
        self.shape = UnitShape(0, 0, 4, 8, 4)
        self.offset = 0
        self.base = 0
        self.addr_base: int | None = None

    def unit(self, offset: int) -> None:
        info = self.info
        length, osize, pos = unit_length(info, offset)
        end = pos + length
        header = unit_header(info, pos, osize)
        if header is None:
            return  # a type unit: no code
        version, asize, abbrev_offset, pos = header
        # unit-relative reading of forms, section-relative positions
        self.shape = UnitShape(offset, end, osize, asize, version)
        self.offset = offset
        table = self.abbrevs.table(abbrev_offset, self.shape)
        code, pos = uleb(info, pos)
        top = table[code] if code else None
        if top is None or not top.children:
            return
        if top.tag == _PARTIAL:
            raise Unreadable("a partial unit")
        values, pos = self._attributes(top, pos, _UNIT_WANTED)
        base = values.get(_ADDR_BASE)
        self.addr_base = base[1] if base is not None else None
        low = values.get(_LOW)
        self.base = self._address(*low) if low is not None else 0
        self._children(table, pos, end)

    def _children(self, table: AbbrevTable, pos: int, end: int) -> None:
        info = self.info
        # Per open level: whether its DIEs are walked, whether their names are kept (at the
        # top and in namespaces, as dies.DwarfUnits._collect_names), whether a namespace's.
        levels = [(True, True, False)]
        namespaces: list[int] = []
        walked, named = True, True
        while pos < end and levels:
            start = pos
            code = info[pos]
            if code < 0x80:
                pos += 1
            else:
                code, pos = uleb(info, pos)
            if code == 0:
                if levels.pop()[2]:
                    namespaces.pop()
                if levels:
                    walked, named, _ = levels[-1]
                continue
            entry = table[code]
            tag = entry.tag
            if not walked or tag not in _WALKED:
                if tag == _IMPORTED and walked:
                    raise Unreadable("an imported unit")
                pos = self._skip(entry, start, pos, end, levels)
                walked, named, _ = levels[-1]
                continue
            if tag == _INLINED:
                values, pos = self._attributes(entry, pos, _COPY_WANTED)
                origin = self._reference(values.get(_ORIGIN))
                if origin is not None:
                    self.origin_of[start] = origin
                    self.copies.append((origin, self.offset, self._ranges(values)))
            elif tag == _SUBPROGRAM:
                values, pos = self._attributes(entry, pos, _SUBPROGRAM_WANTED)
                origin = self._reference(values.get(_ORIGIN))
                if origin is not None:
                    self.origin_of[start] = origin
                if named:
                    self._subprogram(entry, start, values, namespaces)
            else:
                _values, pos = self._attributes(entry, pos, _NOTHING)
            if entry.children:
                namespace = tag == _NAMESPACE and named
                if namespace:
                    namespaces.append(start)
                levels.append((True, namespace, namespace))
                walked, named = True, namespace

    def _subprogram(self, entry: Abbrev, start: int, values: dict[int, tuple[int, int]],
                    namespaces: list[int]) -> None:  # fmt: skip
        """A top-level or namespace-level subprogram: an abstract instance, or a definition
        with code (outofline._in_unit's: no DW_AT_declaration)."""
        name = self._name(entry, values)
        if _abstract_shape(entry):
            self.abstract.append(_Abstract(self.offset, start, name, tuple(namespaces)))
            if name is not None:
                self._simple[start] = name
        if any(attr == _DECLARATION for attr, _f, _s, _i in entry.attrs):
            return
        ranges = self._ranges(values)
        if not ranges:
            return
        targets = [self._reference(values.get(attr)) for attr in (_ORIGIN, _SPECIFICATION)]
        if any(t is not None and not self.offset <= t < self.shape.end for t in targets):
            return  # named from another unit: outofline's search by the name's bytes misses it
        low, high = ranges[0]  # outofline.entry_range's
        self.defined.append((_Abstract(self.offset, start, name, tuple(namespaces)), low, high))
        if name is None and targets[0] is not None and targets[1] is None and _NAME not in values:
            self._origin_named[start] = targets[0]  # named by its origin's name (once walked)

    def _skip(
        self, entry: Abbrev, start: int, pos: int, end: int, levels: list[tuple[bool, bool, bool]]
    ) -> int:
        """Past a DIE not walked (`pos`: after its code), its children too where its sibling
        link tells where they end; else into them, unwalked."""
        info = self.info
        if not entry.children:
            if entry.fixed >= 0:
                return pos + entry.fixed
            return self._attributes(entry, pos, _NOTHING)[1]
        if entry.sibling is not None:
            at, size = entry.sibling
            target = self.offset + int.from_bytes(info[pos + at : pos + at + size], "little")
            if start < target <= end:  # forward only: one pointing back loops
                return target
        values, pos = self._attributes(entry, pos, _SIBLING_ONLY)
        sibling = values.get(_SIBLING)
        if sibling is not None:
            form, value = sibling
            target = (
                value if form == forms.REF_ADDR else self.offset + value if form in _REFS else -1
            )
            if start < target <= end:
                return target
        levels.append((False, False, False))
        return pos

    def _attributes(
        self, entry: Abbrev, pos: int, wanted: frozenset[int]
    ) -> tuple[dict[int, tuple[int, int]], int]:
        """{attribute: (form, value)} of the wanted ones (a string's value: its position)."""
        info = self.info
        values: dict[int, tuple[int, int]] = {}
        for attr, form, size, _implicit in entry.attrs:
            if size == INDIRECT:
                while form == forms.INDIRECT_FORM:
                    form, pos = uleb(info, pos)
                size = size_code(form, self.shape)
            if attr not in wanted:
                if size >= 0:
                    pos += size
                elif size == LEB:
                    while info[pos] >= 0x80:
                        pos += 1
                    pos += 1
                else:
                    pos = skip(info, pos, size)
                continue
            if size >= 0:
                value = int.from_bytes(info[pos : pos + size], "little")
                pos += size
            elif size == LEB:
                value, pos = uleb(info, pos)
            elif size == CSTRING:
                value, pos = pos, info.index(b"\0", pos) + 1
            else:
                value, pos = -1, skip(info, pos, size)
            values[attr] = (form, value)
        return values, pos

    def _reference(self, found: tuple[int, int] | None) -> int | None:
        """The section offset a DW_AT_abstract_origin points at."""
        if found is None:
            return None
        form, value = found
        if form in _REFS:
            return self.offset + value
        if form == forms.REF_ADDR:
            return value
        raise Unreadable(f"a reference in form {form:#x}")

    def _name(self, entry: Abbrev, values: dict[int, tuple[int, int]]) -> str | None:
        """The DW_AT_name as dies.die_name decodes it, where that is the whole qualified
        name (not through a specification); None: pyelftools names it."""
        if any(attr in _BY_NAME_ONLY for attr, _f, _s, _i in entry.attrs):
            return None
        found = values.get(_NAME)
        if found is None or found[0] not in _SIMPLE_NAMES:
            return None
        form, value = found
        data, at = (
            (self.info, value)
            if form == forms.STRING
            else (self.str if form == forms.STRP else self.line_str, value)
        )
        stop = data.find(b"\0", at)
        if not 0 <= at < len(data) or stop < 0:
            return None
        return data[at:stop].decode("utf-8", "replace")

    def _address(self, form: int, value: int) -> int:
        if form == forms.ADDR:
            return value
        if form in ADDRX_FORMS and self.addr_base is not None:
            found = addrx(self.addr, self.addr_base, value, self.shape.asize)
            if found is not None:
                return found
        raise Unreadable(f"an address in form {form:#x}")

    def _ranges(self, values: dict[int, tuple[int, int]]) -> Ranges:
        """DwarfUnits.die_ranges, empty ones dropped."""
        low, high = values.get(_LOW), values.get(_HIGH)
        if low is not None and high is not None:
            start = self._address(*low)
            form, end = high
            end = end if form == forms.ADDR or form in ADDRX_FORMS else start + end
            if form in ADDRX_FORMS:
                end = self._address(form, end)
            return ((start, end),) if start < end else ()
        found = values.get(_RANGES)
        if found is None:
            return ()
        form, offset = found
        if form not in _RANGE_FORMS:
            raise Unreadable(f"DW_AT_ranges in form {form:#x}")
        if self.shape.version < 5:
            pairs = v4_ranges(self._list(".debug_ranges"), offset, self.base)
        else:
            pairs = v5_ranges(
                self._list(".debug_rnglists"),
                offset,
                self.base,
                lambda i: self._address(forms.ADDRX, i),
            )
        return tuple(pair for pair in pairs if pair[0] < pair[1])

    def _list(self, section: str) -> bytes:
        data = self._lists.get(section)
        if data is None:
            data = self._lists[section] = (
                self._sections.get(section) if self._sections.has(section) else b""
            )
        return data

    def answers(self, lto: frozenset[int], name_of: NameOf) -> dict[str, list[InlineSite]]:
        """key -> sites, as InlineFinder.sites gives them for the key."""
        by_key: dict[str, list[_Abstract]] = {}
        qualified: dict[int, str] = {}
        ends = self._by_end()
        for abstract in self.abstract:
            if abstract.offset not in ends:
                continue  # no copy: nothing for any name
            named = (abstract.name, abstract.name) if abstract.name else None
            if named is None or abstract.namespaces:
                named = name_of(abstract.unit, abstract.offset, abstract.namespaces)
            if named is None or not named[0]:
                continue
            name, own = named
            qualified[abstract.offset] = name
            for key in names.lookup_keys(name, name):
                # InlineFinder._abstract_in's test, both ways; and inline_sites' search
                # (units_defining) finds only a unit whose DIE's own name is the key's leaf
                leaf = query_leaf(key)
                if key in name and (own == leaf or own.startswith(leaf + "<")):
                    by_key.setdefault(key, []).append(abstract)
        out: dict[str, list[InlineSite]] = {}
        for key, found in by_key.items():
            units = {a.unit for a in found}
            sites = []
            for abstract in {a.offset: a for a in found}.values():
                copies = ends[abstract.offset]
                # the units searched first, then the LTO units (InlineFinder.sites' order)
                ordered = [c for c in copies if c[0] in units] + [
                    c for c in copies if c[0] in lto and c[0] not in units
                ]
                sites += [
                    InlineSite(qualified[abstract.offset], r[0][0], r) for _unit, r in ordered if r
                ]
            out[key] = sites
        return out

    def definitions(self, name_of: NameOf) -> dict[str, list[Definition]]:
        """key -> outofline.defined_functions' answer for the key (its _search)."""
        by_key: dict[str, dict[int, Definition]] = {}
        for defined, low, high in self.defined:
            named = (defined.name, defined.name) if defined.name else None
            origin = self._origin_named.get(defined.offset)
            if named is None and origin is not None and origin in self._simple:
                named = (self._simple[origin], self._simple[origin])
            if named is None or defined.namespaces:
                named = name_of(defined.unit, defined.offset, defined.namespaces)
            if named is None or not named[0]:
                continue
            name, own = named
            for key in names.lookup_keys(name, name):
                leaf = query_leaf(key)
                if key in name and (own == leaf or own.startswith(leaf + "<")):
                    by_key.setdefault(key, {})[low] = (name, low, high)  # a later unit's wins
        return {
            key: sorted(found.values(), key=lambda entry: entry[1]) for key, found in by_key.items()
        }

    def _by_end(self) -> dict[int, list[tuple[int, Ranges]]]:
        """The copies by the end of their origin chain (inlines._abstract_origin: 4 links)."""
        found: dict[int, list[tuple[int, Ranges]]] = {}
        origin_of = self.origin_of
        for origin, unit, ranges in self.copies:
            end, seen = origin, 1
            while end in origin_of and seen < 4:
                end, seen = origin_of[end], seen + 1
            found.setdefault(end, []).append((unit, ranges))
        return found


def names_by(units: DwarfUnits) -> NameOf:
    """NameOf through pyelftools: the qualified name dies.DwarfUnits._collect_names gives."""

    def name_of(unit: int, offset: int, namespaces: tuple[int, ...]) -> tuple[str, str] | None:
        cu = units.cu_at_offset(unit)
        name = die_name(cu.get_DIE_from_refaddr(offset))
        if not name:
            return None
        scopes = [die_name(cu.get_DIE_from_refaddr(at)) for at in namespaces]
        prefix = "".join(f"{scope}::" for scope in scopes if scope)  # anonymous ones add none
        return _scope_of_spec(cu.get_DIE_from_refaddr(offset), prefix) + name, name

    return name_of


def _abstract_shape(entry: Abbrev) -> bool:
    """inlines._is_abstract_function of every DIE of this abbreviation."""
    attributes = {attr for attr, _form, _size, _implicit in entry.attrs}
    return _INLINE in attributes or not attributes & _NOT_ABSTRACT


# --- when to use it ------------------------------------------------------------------------
# Names being set together, in any thread: rbreak's batches run on the tracer thread, or ask
# it for each name while the program runs. It picks the way only: both give the same answers.
_together = [0]
_lock = threading.Lock()


@contextmanager
def many_names() -> Iterator[None]:
    """Breakpoints on many functions are being set (rbreak): the resolver answers their
    inlined copies from one walk (InlineMap) rather than a search each."""
    with _lock:
        _together[0] += 1
    try:
        yield
    finally:
        with _lock:
            _together[0] -= 1


def wanted() -> bool:
    return _together[0] > 0
