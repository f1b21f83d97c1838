"""Inlined copies of functions: where `break NAME` binds besides the out-of-line code.

Finding the copies of NAME needs the DIE tree, which the location index never parses. So
the units that can hold them are narrowed first by a byte search: a unit names a function
through DW_AT_name, whose string lives inline in .debug_info or in a string section that
.debug_info points into; of those, the units whose bytes cannot hold a definition, then an
abstract instance, of NAME are dropped (definers.py). Only the rest are walked (pyelftools,
code subtrees only), and the answer per name is kept in the index's on-disk cache, so a
second session skips both.
Addresses are link-time.
"""

from __future__ import annotations

import contextlib
import logging
import struct
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from elftools.dwarf.compileunit import CompileUnit
from elftools.dwarf.die import DIE

from aliceserver.debuggers.symbols.dwarf import mentions, names
from aliceserver.debuggers.symbols.dwarf.abbrevs import AbbrevCache
from aliceserver.debuggers.symbols.dwarf.altfile import shares_units
from aliceserver.debuggers.symbols.dwarf.definers import Undecided, may_define
from aliceserver.debuggers.symbols.dwarf.dies import DwarfUnits
from aliceserver.debuggers.symbols.dwarf.dietree import children
from aliceserver.debuggers.symbols.dwarf.globalnames import units_defining
from aliceserver.debuggers.symbols.dwarf.rawread import unit_length
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
from aliceserver.debuggers.symbols.dwarf.sectionsearch import Needle
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.index import DebugInfo

log = logging.getLogger(__name__)

_MAX_REFERENCES = 256  # string offsets worth searching for; more means "every unit"
_CODE_TAGS = frozenset(("DW_TAG_subprogram", "DW_TAG_lexical_block", "DW_TAG_namespace"))


@dataclass(frozen=True, slots=True)
class InlineSite:
    """One inlined copy (a DW_TAG_inlined_subroutine) of a function."""

    name: str  # the function's name, qualified as `break` accepts it
    entry: int  # gdb's BLOCK_ENTRY_PC: low_pc, else the first range's start
    ranges: tuple[tuple[int, int], ...]


def units_mentioning(
    sections: ElfSections, unit_offsets: Sequence[int] | Callable[[], Sequence[int]], text: str
) -> list[int] | None:
    """Offsets of the units whose .debug_info may name `text` (a superset: a byte search);
    None when the name is too common to narrow (every unit may). `unit_offsets` may be
    a callable, called only when some bytes match (the unit list of a library that never
    names `text` is not built)."""
    needles = mention_needles(sections, text)
    if needles is None:
        return None
    return sorted(mentions.holding(sections, needles, unit_offsets)) if needles else []


def mention_needles(sections: ElfSections, text: str) -> list[Needle] | None:
    """What .debug_info holds where a unit names `text` (the byte search's needles);
    None when the name is too common to narrow."""
    needle = text.encode("utf-8", "surrogateescape")
    if not needle:
        return []
    references = _string_offsets(sections, needle)
    if len(references) > _MAX_REFERENCES:
        return None
    if references and sections.has(".debug_str_offsets"):
        return None  # names through DW_FORM_strx: the unit is not found by bytes alone
    # DW_FORM_string, ended by NUL, or a template instance's name (`<`)
    needles: list[Needle] = [(needle, b"\0<")]
    # DW_FORM_strp: a 4-byte offset (8 in DWARF64, same prefix)
    needles += [offset.to_bytes(4, "little") for offset in references]
    return needles


def query_leaf(query: str) -> str:
    """The name the byte search looks for, for `break QUERY`: its last component,
    template arguments stripped."""
    key, _params = names.normalize_query(query)
    comps = names.split_qualified(key)
    return names.strip_templates(comps[-1]) if comps else key


def _string_offsets(sections: ElfSections, needle: bytes) -> list[int]:
    """Where .debug_str and .debug_line_str hold `needle` as a string or a template's
    (kept for the last names asked: `break` asks for each image's 2-3 times)."""
    kept = _offsets_kept.get(sections)
    if kept is None or len(kept) > _OFFSETS_KEPT:  # (rbreak asks thousands once each)
        kept = _offsets_kept[sections] = {}
    references = kept.get(needle)
    if references is None:
        references = []
        for section in (".debug_str", ".debug_line_str"):
            data = sections.get(section)
            for end in (b"\0", b"<"):
                references += _find_all(data, needle + end)
        kept[needle] = references
    return list(references)


_OFFSETS_KEPT = 16
_offsets_kept: weakref.WeakKeyDictionary[ElfSections, dict[bytes, list[int]]] = (
    weakref.WeakKeyDictionary()
)


def _find_all(data: bytes, needle: bytes) -> list[int]:
    out = []
    at = data.find(needle)
    while at >= 0:
        out.append(at)
        at = data.find(needle, at + 1)
    return out


class InlineFinder:
    """The inlined copies of named functions in one image's DWARF (walks are cached per CU)."""

    def __init__(self, units: DwarfUnits) -> None:
        self.units = units
        self._by_origin: dict[int, dict[int, list[DIE]]] = {}  # cu -> abstract DIE -> copies

    def sites(
        self, cu_offsets: Iterable[int], key: str, lto_offsets: Iterable[int] = ()
    ) -> list[InlineSite]:
        """Copies of the function `key` (a normalized query) defined in the given units,
        inlined there or, after link-time optimization, in the LTO units (gcc's
        `<artificial>` units, whose copies point into the defining unit)."""
        abstract: list[tuple[str, DIE]] = []
        searched: list[int] = []
        for offset in cu_offsets:
            try:
                abstract += self._abstract_in(self.units.cu_at_offset(offset), key)
                searched.append(offset)
            except Exception as exc:  # noqa: BLE001 - pyelftools on odd DWARF: no copies
                log.debug("function %s in unit %#x: %s", key, offset, exc)
        if not abstract:
            return []
        copies: dict[int, list[DIE]] = {}
        for offset in dict.fromkeys([*searched, *lto_offsets]):
            try:
                for origin, found in self._copies(self.units.cu_at_offset(offset)).items():
                    copies.setdefault(origin, []).extend(found)
            except Exception as exc:  # noqa: BLE001
                log.debug("inlined copies in unit %#x: %s", offset, exc)
        out = []
        # dwz: units importing one partial unit find its abstract instance each
        for qualified, die in {
            die.offset: (qualified, die) for qualified, die in abstract
        }.values():
            for copy in copies.get(die.offset, ()):
                ranges = tuple(r for r in self.units.die_ranges(copy) if r[0] < r[1])
                if ranges:  # gdb 13 ignores DW_AT_entry_pc: the first range it is
                    out.append(InlineSite(qualified, ranges[0][0], ranges))
        return out

    def _abstract_in(self, cu: CompileUnit, key: str) -> list[tuple[str, DIE]]:
        abstract: list[tuple[str, DIE]] = []
        for qualified, dies in self.units.top_level_names(cu).items():
            if key not in qualified or key not in names.lookup_keys(qualified, qualified):
                continue
            abstract += [(qualified, d) for d in dies if _is_abstract_function(d)]
        return abstract

    def _copies(self, cu: CompileUnit) -> dict[int, list[DIE]]:
        known = self._by_origin.get(cu.cu_offset)
        if known is None:
            known = {}
            self._walk(cu.get_top_DIE(), known)
            self._by_origin[cu.cu_offset] = known
        return known

    def _walk(self, parent: DIE, out: dict[int, list[DIE]]) -> None:
        for child in children(parent):
            tag = child.tag
            if tag == "DW_TAG_inlined_subroutine":
                origin = _abstract_origin(child)
                if origin is not None:
                    out.setdefault(origin, []).append(child)
            elif tag not in _CODE_TAGS:
                continue  # types, variables: no code inside
            if child.has_children:
                self._walk(child, out)


def _is_abstract_function(die: DIE) -> bool:
    """A function's abstract instance: marked inline, or (gcc's LTO early debug, whose
    concrete copies live in other units) a definition without code of its own."""
    if die.tag != "DW_TAG_subprogram":
        return False
    attributes = die.attributes
    if "DW_AT_inline" in attributes:
        return True
    return not any(name in attributes for name in _NOT_ABSTRACT)


_NOT_ABSTRACT = ("DW_AT_low_pc", "DW_AT_ranges", "DW_AT_declaration", "DW_AT_specification",
                 "DW_AT_abstract_origin")  # fmt: skip


def _abstract_origin(die: DIE) -> int | None:
    """The offset of the abstract instance at the end of the DW_AT_abstract_origin chain
    (gcc before 4.5 could chain them)."""
    seen = 0
    while "DW_AT_abstract_origin" in die.attributes and seen < 4:
        die = die.get_DIE_from_attribute("DW_AT_abstract_origin")
        seen += 1
    return die.offset if seen else None


def inline_sites(
    info: DebugInfo, finder: Callable[[], InlineFinder | None], query: str
) -> list[InlineSite]:
    """The inlined copies `break QUERY` binds to, remembered in the index's disk cache;
    `finder` is asked for (and the DWARF opened) only when the cache has no answer."""
    key, _params = names.normalize_query(query)
    if not key:
        return []
    remembered = info.remembered("inline", key)
    if isinstance(remembered, list):
        try:
            return [_site(entry) for entry in remembered]
        except (TypeError, ValueError):
            pass  # another shape: compute it again
    comps = names.split_qualified(key)
    leaf = names.strip_templates(comps[-1]) if comps else key
    # dwz: the name may be in a partial unit (or the alt file) that units import
    shared = shares_units(info.sections)
    candidates = None if shared else units_mentioning(info.sections, info.unit_offsets, leaf)
    narrowing = _Narrowing.of(info.sections, leaf, candidates) if candidates else None
    # Two filters, unit by unit, so in either order: only units defining it can inline it
    # (many only call it), and a unit without an abstract instance so named has nothing
    # to copy (the DWARF is then not opened: CPython's PyList_Append, 14 ms of pyelftools'
    # top-level parse). The second first where both run: most names are never inlined,
    # and it tells that without looking for references to the callers' declarations.
    abstract = candidates is not None and 1 < len(candidates) <= _MAX_REFERENCES
    if candidates is None:
        candidates = info.unit_offsets()
    elif len(candidates) > 1:
        if abstract:
            candidates = _units_with_abstract(info.sections, candidates, leaf, narrowing)
        defining = (
            units_defining_leaf(info.sections, candidates, leaf, narrowing) if candidates else []
        )
        candidates = candidates if defining is None else defining
    if not abstract and candidates and len(candidates) <= _MAX_REFERENCES and not shared:
        candidates = _units_with_abstract(info.sections, candidates, leaf, narrowing)
    made = finder() if candidates else None
    lto = _lto_units(info) if candidates else []
    sites = made.sites(candidates, key, lto) if made is not None else []
    info.remember("inline", key, [(s.name, s.entry, list(s.ranges)) for s in sites])
    return sites


_LTO_UNIT_NAME = "<artificial>"  # DW_AT_name of the units gcc's link-time optimizer writes


def _lto_units(info: DebugInfo) -> list[int]:
    """The units link-time optimization made (by their name, which the index keeps)."""
    return info.units_named(_LTO_UNIT_NAME)


def _unit_bytes(read: Callable[[int, int], bytes], offset: int) -> bytes:
    """The unit at `offset` of .debug_info, by `read(offset, size)` (ElfSections.reader)."""
    length, _osize, body = unit_length(read(offset, 12), 0)
    return read(offset, body + length)


@dataclass(slots=True)
class _Narrowing:
    """What narrowing `candidates` to those defining `leaf` needs, read once for both
    steps: the name's bytes, its string offsets, the abbreviation tables, and where the
    byte search found each needle first in each unit (mentions.first_hits: the narrowing
    searches on from there, and not for a needle its unit lacks)."""

    needle: bytes
    offsets: frozenset[int]
    cache: AbbrevCache
    hits: dict[Needle, dict[int, int]] | None

    @classmethod
    def of(cls, sections: ElfSections, leaf: str, candidates: Sequence[int] = ()) -> _Narrowing:
        needle = leaf.encode("utf-8", "surrogateescape")
        references = _string_offsets(sections, needle)
        hits = None
        if candidates and len(references) <= _MAX_REFERENCES:
            searched: list[Needle] = [(needle, b"\0<"), *(o.to_bytes(4, "little") for o in references)]  # fmt: skip
            hits = mentions.first_hits(sections, searched, candidates)
        return cls(needle, frozenset(references), AbbrevCache(sections.get(".debug_abbrev")), hits)

    @property
    def needles(self) -> tuple[bytes, bytes]:
        return (self.needle + b"\0", self.needle + b"<")

    def starts(self, offset: int, size: int) -> dict[bytes | int, int] | None:
        """Where each needle is first in the `size` bytes of the unit at `offset`; None
        when not known."""
        if self.hits is None:
            return None
        starts: dict[bytes | int, int] = {}
        named = self.hits.get((self.needle, b"\0<"), {}).get(offset)
        if named is not None:
            starts[self.needles[0]] = starts[self.needles[1]] = named - offset
        for string in self.offsets:
            at = self.hits.get(string.to_bytes(4, "little"), {}).get(offset)
            if at is not None:
                starts[string] = at - offset
        return starts if all(0 <= at < size for at in starts.values()) else None


def _units_with_abstract(sections: ElfSections, candidates: Sequence[int], leaf: str,
                         narrowing: _Narrowing | None = None) -> list[int]:  # fmt: skip
    """Those of `candidates` that may hold an abstract instance named `leaf` (definers.py)."""
    known = narrowing or _Narrowing.of(sections, leaf, candidates)
    kept = []
    with contextlib.suppress(TargetError), sections.reader(".debug_info") as read:
        for offset in candidates:
            try:
                unit = _unit_bytes(read, offset)
                starts = known.starts(offset, len(unit))
                if not may_define(unit, known.cache, known.needles, known.offsets, True, starts):
                    continue
            except (Undecided, TargetError, KeyError, IndexError, ValueError, struct.error):
                pass  # kept: InlineFinder looks
            kept.append(offset)
        return kept
    return list(candidates)  # the section unreadable: InlineFinder looks


def units_defining_leaf(sections: ElfSections, candidates: Sequence[int], leaf: str,
                        narrowing: _Narrowing | None = None) -> list[int] | None:  # fmt: skip
    """globalnames.units_defining over the candidate units (units_mentioning's), each read
    alone (not the whole .debug_info: it may be hundreds of MB for a few units). A unit is
    scanned as if at offset 0; only a cross-unit reference (DW_FORM_ref_addr, LTO's) could
    then be misread, and LTO units are searched whatever this says."""
    strings = (sections.get(".debug_str"), sections.get(".debug_line_str"),
               sections.get(".debug_str_offsets"))  # fmt: skip
    # Most candidates only call it: their bytes tell that without a walk (definers.py)
    known = narrowing or _Narrowing.of(sections, leaf, candidates)
    try:
        with sections.reader(".debug_info") as read:
            return _defining(read, candidates, known, strings, leaf)
    except TargetError:
        return None


def _defining(read: Callable[[int, int], bytes], candidates: Sequence[int], known: _Narrowing,
              strings: tuple[bytes, bytes, bytes], leaf: str) -> list[int] | None:  # fmt: skip
    found = []
    for offset in candidates:
        try:
            unit = _unit_bytes(read, offset)
        except (TargetError, struct.error):
            return None
        try:
            if not may_define(unit, known.cache, known.needles, known.offsets, False,
                              known.starts(offset, len(unit))):  # fmt: skip
                continue
        except (Undecided, KeyError, IndexError, ValueError):
            pass  # walked as before
        defining = units_defining(unit, known.cache.abbrev, strings, [0], leaf)
        if defining is None:
            return None
        if defining:
            found.append(offset)
    return found


def _site(entry: Any) -> InlineSite:
    name, address, ranges = entry
    return InlineSite(str(name), int(address), tuple((int(lo), int(hi)) for lo, hi in ranges))


def breakpoint_address(info: DebugInfo, site: InlineSite) -> int:
    """Where gdb's `break NAME` stops in an inlined copy: its entry; when that falls inside
    a line-table row, the next row, if still inside the copy (gdb's skip_prologue_sal)."""
    row = info.location_at(site.entry)
    if row is None or row.address == site.entry:
        return site.entry
    following = info.next_row_address(site.entry)
    if following is not None and any(lo <= following < hi for lo, hi in site.ranges):
        return following
    return site.entry
