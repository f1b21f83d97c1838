"""A names index of a binary's DWARF: which compilation units define a global name.

Finding `environ` in libc6-dbg's debug file by parsing every unit's DIEs with pyelftools
takes seconds; this scan reads the raw .debug_info / .debug_abbrev bytes instead, visits
only each unit's top-level DIEs (and namespace members, enumerators), jumps over subtrees
by DW_AT_sibling, and keeps name -> unit offsets. A query then parses only those units.
"""

from __future__ import annotations

import logging
import os
import struct
import threading
import time
from bisect import bisect_right
from collections.abc import Callable, Iterable

from elftools.dwarf.enums import ENUM_DW_AT, ENUM_DW_FORM, ENUM_DW_TAG

from aliceserver.debuggers.symbols.dwarf import forms
from aliceserver.debuggers.symbols.dwarf.abbrevs import (
    Abbrev,
    AbbrevCache,
    AbbrevTable,
    UnitShape,
    size_code,
)
from aliceserver.debuggers.symbols.dwarf.altfile import ALT_BASE, open_alt
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.forms import (
    CSTRING,
    INDIRECT,
    LEB,
    STRX_FORMS,
    default_base,
    skip,
    strx_offset,
)
from aliceserver.debuggers.symbols.dwarf.rawread import cstring, uleb, unit_header, unit_length
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections, FileIdentity
from aliceserver.errors import TargetError, Unsupported

log = logging.getLogger(__name__)

Progress = Callable[[str, float | None], None]


def _tags(*names: str) -> list[int]:
    return [ENUM_DW_TAG["DW_TAG_" + name] for name in names]


def _attributes(*names: str) -> list[int]:
    return [ENUM_DW_AT["DW_AT_" + name] for name in names]


# Tags whose names are looked up (as dies.DwarfUnits._collect_names keeps them).
_TAG_VARIABLE, _TAG_SUBPROGRAM, _TAG_TYPEDEF, _TAG_STRUCT = _tags("variable", "subprogram", "typedef",
                                                                  "structure_type")  # fmt: skip
_TAG_CLASS, _TAG_UNION, _TAG_ENUM, _TAG_BASE = _tags("class_type", "union_type", "enumeration_type",
                                                     "base_type")  # fmt: skip
_TAG_NAMESPACE, _TAG_ENUMERATOR = _tags("namespace", "enumerator")
_DEFINITIONS = frozenset({_TAG_VARIABLE, _TAG_SUBPROGRAM, _TAG_TYPEDEF, _TAG_STRUCT, _TAG_CLASS,
                          _TAG_UNION, _TAG_ENUM, _TAG_BASE})  # fmt: skip

_ALT_STRINGS = frozenset(ENUM_DW_FORM["DW_FORM_" + name] for name in ("GNU_strp_alt", "strp_sup"))
_AT_SIBLING, _AT_NAME, _AT_DECLARATION = _attributes("sibling", "name", "declaration")
_AT_ABSTRACT_ORIGIN, _AT_SPECIFICATION, _AT_STR_OFFSETS_BASE = _attributes(
    "abstract_origin", "specification", "str_offsets_base")
_WANTED = frozenset({_AT_SIBLING, _AT_NAME, _AT_DECLARATION, _AT_ABSTRACT_ORIGIN,
                     _AT_SPECIFICATION, _AT_STR_OFFSETS_BASE})  # fmt: skip


class _Scanner:
    """Walks one .debug_info; `names` gets name -> [(unit offset, is a declaration)]."""

    def __init__(
        self,
        info: bytes,
        abbrev: bytes,
        strings: tuple[bytes, bytes, bytes],
        recorded: frozenset[int] = _DEFINITIONS,
        declarations: bool = True,
        wanted: frozenset[int] = _WANTED,
    ) -> None:
        self.info = info
        self._wanted = wanted  # the attributes whose values _attributes returns
        self._recorded = recorded  # the tags whose names are kept
        self._declarations = declarations  # whether mere declarations are kept too
        self.abbrev = abbrev
        self.str, self.line_str, self.str_offsets = strings
        self.names: dict[str, list[tuple[int, bool]]] = {}
        self._abbrevs = AbbrevCache(abbrev)
        self._strings: dict[tuple[int, int], str] = {}  # (form, offset) -> name
        self._unit = UnitShape(0, 0, 4, 8, 4)
        self._starts: list[int] = []
        self._ends: list[int] = []
        self._str_bases: dict[int, int] = {}  # unit offset -> DW_AT_str_offsets_base
        self.alt_str = b""  # dwz's alt file's .debug_str (DW_FORM_GNU_strp_alt, strp_sup)

    def units(self) -> list[tuple[int, int]]:
        """(header offset, end) of every unit."""
        found = []
        pos = 0
        info = self.info
        while pos + 11 <= len(info):
            length, _osize, body = unit_length(info, pos)
            end = body + length
            if end > len(info):
                break
            found.append((pos, end))
            pos = end
        self._starts = [start for start, _end in found]
        self._ends = [end for _start, end in found]
        return found

    def _open(self, start: int, end: int) -> tuple[UnitShape, AbbrevTable, int] | None:
        """The unit at `start`, its abbreviations, and where its first DIE is; None for
        type units (their types are found through the units that use them)."""
        _length, osize, pos = unit_length(self.info, start)
        try:
            header = unit_header(self.info, pos, osize)
        except TargetError:
            return None  # DWARF 1: nothing to index
        if header is None:
            return None
        version, asize, abbrev_offset, pos = header
        unit = UnitShape(start, end, osize, asize, version)
        return unit, self._abbrevs.table(abbrev_offset, unit), pos

    def scan_unit(self, start: int, end: int) -> None:
        opened = self._open(start, end)
        if opened is None:
            return
        unit, table, pos = opened
        self._unit = unit
        code, pos = uleb(self.info, pos)
        top = table[code] if code else None
        if top is None or not top.children:
            return
        values, pos = self._attributes(top, pos)
        base = values.get(_AT_STR_OFFSETS_BASE)
        if isinstance(base, int):  # the unit's own strx names come after this
            self._str_bases[unit.offset] = base
        self._children(table, pos, end)

    def _children(self, table: AbbrevTable, pos: int, end: int) -> None:  # noqa: C901
        """The unit's children; namespaces and enumerations are entered, the rest skipped."""
        info = self.info
        # Per open level: whether its children are read (a namespace, an enumeration).
        levels = [True]
        read_level = True
        recorded = self._recorded
        declarations = self._declarations
        while pos < end and levels:
            code = info[pos]
            if code < 0x80:
                pos += 1
            else:
                code, pos = uleb(info, pos)
            if code == 0:
                levels.pop()
                read_level = levels[-1] if levels else False
                continue
            entry = table[code]
            tag = entry.tag
            if read_level and (
                (tag in recorded and (declarations or not entry.declares))
                or tag == _TAG_ENUMERATOR
                or tag == _TAG_NAMESPACE
            ):
                values, pos = self._attributes(entry, pos)
                self._record(values, tag, table)
                if entry.children:
                    enters = tag in (_TAG_NAMESPACE, _TAG_ENUM)
                    after = None if enters else self._after_children(values, pos, end)
                    if after is not None:
                        pos = after
                    else:
                        levels.append(enters)
                        read_level = enters
                continue
            if entry.fixed >= 0 and not entry.children:
                pos += entry.fixed
                continue
            pos, inside = self._skip(entry, pos, end)
            if inside:
                levels.append(False)
                read_level = False

    def _after_children(self, values: dict[int, int | str], pos: int, end: int) -> int | None:
        """Where the DIE whose attributes end at `pos` ends, by its DW_AT_sibling; None
        without one (a sibling link is followed forward only: one pointing back loops)."""
        sibling = values.get(_AT_SIBLING)
        if isinstance(sibling, int) and pos <= self._unit.offset + sibling <= end:
            return self._unit.offset + sibling
        return None

    def _skip(self, entry: Abbrev, pos: int, end: int) -> tuple[int, bool]:
        """Past a DIE that is not read, at `pos` after its code: where the walk goes on,
        and whether that is inside its children (it has no sibling link over them)."""
        if entry.children and entry.sibling is not None:
            at, size = entry.sibling
            target = self._unit.offset + int.from_bytes(self.info[pos + at : pos + at + size], "little")
            if pos < target <= end:  # forward only: one pointing back loops
                return target, False
        values, pos = self._attributes(entry, pos, only_sibling=True)
        if not entry.children:
            return pos, False
        after = self._after_children(values, pos, end)
        return (pos, True) if after is None else (after, False)

    def _attributes(
        self, entry: Abbrev, pos: int, only_sibling: bool = False
    ) -> tuple[dict[int, int | str], int]:
        info = self.info
        values: dict[int, int | str] = {}
        for attr, form, size, implicit in entry.attrs:
            if size == INDIRECT:
                while form == forms.INDIRECT_FORM:
                    form, pos = uleb(info, pos)
                size = size_code(form, self._unit)
            keep = attr == _AT_SIBLING if only_sibling else attr in self._wanted
            if not keep:
                if size >= 0:
                    pos += size
                elif size == LEB:
                    while info[pos] >= 0x80:
                        pos += 1
                    pos += 1
                elif size == CSTRING:
                    pos = info.index(b"\0", pos) + 1
                else:
                    pos = skip(info, pos, size)
                continue
            value, pos = self._value(form, size, implicit, pos)
            if value is not None:
                values[attr] = value
        return values, pos

    def _value(self, form: int, size: int, implicit: int, pos: int) -> tuple[int | str | None, int]:
        info = self.info
        if form == forms.STRING:
            return cstring(info, pos)
        if form == forms.IMPLICIT_CONST:
            return implicit, pos
        if form == forms.FLAG_PRESENT:
            return 1, pos
        if form == forms.STRP or form == forms.LINE_STRP:
            offset = int.from_bytes(info[pos : pos + size], "little")
            text = self._strings.get((form, offset))
            if text is None:
                section = self.str if form == forms.STRP else self.line_str
                text = self._strings[form, offset] = _string(section, offset)
            return text, pos + size
        if form in _ALT_STRINGS:
            return _string(self.alt_str, int.from_bytes(info[pos : pos + size], "little")), pos + size
        if form in STRX_FORMS:
            if size == LEB:
                index, pos = uleb(info, pos)
            else:
                index = int.from_bytes(info[pos : pos + size], "little")
                pos += size
            unit = self._unit
            base = self._str_bases.get(unit.offset, default_base(unit.osize))
            at = strx_offset(self.str_offsets, base, index, unit.osize)
            return (None if at is None else _string(self.str, at)), pos
        if form == forms.REF_UDATA:
            value, pos = uleb(info, pos)
            return value, pos
        if form == forms.REF_ADDR:  # section-relative: make it unit-relative like the rest
            value = int.from_bytes(info[pos : pos + size], "little")
            return value - self._unit.offset, pos + size
        if size >= 0:
            return int.from_bytes(info[pos : pos + size], "little"), pos + size
        if size == LEB:
            return uleb(info, pos)
        if size == CSTRING:
            return None, info.index(b"\0", pos) + 1
        return None, skip(info, pos, size)

    def _record(self, values: dict[int, int | str], tag: int, table: AbbrevTable) -> None:
        if tag == _TAG_NAMESPACE:
            return  # looked up by its members' names
        name = values.get(_AT_NAME)
        if not isinstance(name, str):
            name = self._referenced_name(values, table)
        if not name:
            return
        declaration = bool(values.get(_AT_DECLARATION)) and tag != _TAG_ENUMERATOR
        self.names.setdefault(name, []).append((self._unit.offset, declaration))

    def _referenced_name(self, values: dict[int, int | str], table: AbbrevTable) -> str | None:
        """The name an out-of-line definition takes from its specification or abstract
        origin (a C++ method defined outside its class; LTO refers across units)."""
        unit = self._unit
        try:
            for _ in range(4):
                ref = values.get(_AT_SPECIFICATION, values.get(_AT_ABSTRACT_ORIGIN))
                if not isinstance(ref, int):
                    return None
                target = unit.offset + ref  # refs are kept relative to their unit
                if not unit.offset < target < unit.end:
                    found = self._unit_holding(target)
                    if found is None:
                        return None
                    unit, table = found
                saved, self._unit = self._unit, unit
                try:
                    code, pos = uleb(self.info, target)
                    values, _ = self._attributes(table[code], pos)
                finally:
                    self._unit = saved
                name = values.get(_AT_NAME)
                if isinstance(name, str):
                    return name
        except (IndexError, KeyError, ValueError, struct.error, TargetError):
            return None
        return None

    def _unit_holding(self, offset: int) -> tuple[UnitShape, AbbrevTable] | None:
        i = bisect_right(self._starts, offset) - 1
        if i < 0 or offset >= self._ends[i]:
            return None
        opened = self._open(self._starts[i], self._ends[i])
        return None if opened is None else (opened[0], opened[1])


def _string(section: bytes, offset: int) -> str:
    end = section.find(b"\0", offset)
    if offset >= len(section) or end < 0:
        return ""
    return section[offset:end].decode("utf-8", "surrogateescape")


def scan_global_names(
    info: bytes,
    abbrev: bytes,
    strings: tuple[bytes, bytes, bytes],
    progress: Progress | None = None,
    alt_str: bytes = b"",
) -> dict[str, list[int]]:
    """name -> offsets of the units defining it (definitions first, then units that only
    declare it), for every top-level or namespace-level variable, function, type and
    enumerator. `strings`: (.debug_str, .debug_line_str, .debug_str_offsets); `alt_str`:
    the alt file's .debug_str (dwz)."""
    scanner = _Scanner(info, abbrev, strings)
    scanner.alt_str = alt_str
    try:
        units = scanner.units()
    except (TargetError, struct.error) as exc:
        log.warning("unreadable .debug_info: %s", exc)
        units = []
    step = max(1, len(units) // 20)
    for number, (start, end) in enumerate(units):
        if progress is not None and number % step == 0:
            progress(f"indexing global names: unit {number} of {len(units)}", number / len(units))
        try:
            scanner.scan_unit(start, end)
        except (IndexError, KeyError, ValueError, struct.error, TargetError) as exc:
            log.debug("unit at %#x not indexed: %s", start, exc)
    result: dict[str, list[int]] = {}
    for name, found in scanner.names.items():
        defined = dict.fromkeys(offset for offset, declaration in found if not declaration)
        declared = [o for o in dict.fromkeys(o for o, _ in found) if o not in defined]
        result[name] = [*defined, *declared]
    return result


def units_defining(
    info: bytes,
    abbrev: bytes,
    strings: tuple[bytes, bytes, bytes],
    unit_offsets: Iterable[int],
    name: str,
) -> list[int] | None:
    """Of the units at `unit_offsets`, those with a top-level definition (not a mere
    declaration) named `name` or `name<...>`: where a function's inlined copies can be (without LTO).
    None when the units cannot be read: the caller looks at all of them."""
    # Only functions, and no declarations: most of a unit's top level is prototypes and
    # types from headers, skipped by their size or sibling link without being read.
    scanner = _Scanner(info, abbrev, strings, frozenset({_TAG_SUBPROGRAM}), declarations=False)
    try:
        bounds = dict(scanner.units())
    except (TargetError, struct.error):
        return None
    for offset in unit_offsets:
        end = bounds.get(offset)
        if end is None:
            return None
        try:
            scanner.scan_unit(offset, end)
        except (IndexError, KeyError, ValueError, struct.error, TargetError):
            return None
    found = {
        unit
        for key, places in scanner.names.items()
        if key == name or key.startswith(name + "<")  # and every template instance
        for unit, declaration in places
        if not declaration
    }
    return sorted(found)


_PAYLOAD_VERSION = 2  # 2: dwz's alt file's names too (units at altfile.ALT_BASE and up)
_REPORT_ABOVE = 1 << 20  # bytes of .debug_info: smaller ones are indexed before anyone sees


class GlobalNameIndex:
    """The names index of one file's DWARF: built on the first query (or read from the
    on-disk cache, keyed by build id beside the location index), then kept."""

    def __init__(
        self,
        path: str,
        build_id: str | None,
        cache: IndexCache | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.path = path
        self._build_id = build_id
        self._cache = cache
        self._progress = progress
        self._names: dict[str, list[int]] | None = None
        self._lock = threading.Lock()

    def units_named(self, name: str) -> list[int] | None:
        """Offsets of the units with a top-level entity whose DW_AT_name is `name` (the
        last component of a qualified name), definitions first; None: no index (unreadable
        DWARF), so the caller has to look everywhere."""
        names = self.names()
        if names is None:
            return None
        return names.get(name, [])

    def names(self) -> dict[str, list[int]] | None:
        with self._lock:
            if self._names is None:
                self._names = self._load()
            return self._names if self._names else None

    def _load(self) -> dict[str, list[int]]:
        try:
            ident = FileIdentity.of(self.path)
        except OSError as exc:
            log.info("no names index for %s: %s", self.path, exc)
            return {}
        key = IndexCache.key_for(self._build_id, self.path, ident.mtime_ns, ident.size) + "-names"
        identity = (ident.path, ident.mtime_ns, ident.size, self._build_id, _PAYLOAD_VERSION)
        if self._cache is not None:
            payload = self._cache.load(key, identity)
            names = payload.get("names") if payload is not None else None
            if isinstance(names, dict):
                log.debug("names index of %s read from the cache", self.path)
                return names
        started = time.perf_counter()
        try:
            sections = ElfSections(self.path)
            info = sections.get(".debug_info")
            abbrev = sections.get(".debug_abbrev")
            strings = (sections.get(".debug_str"), sections.get(".debug_line_str"),
                       sections.get(".debug_str_offsets"))  # fmt: skip
        except (TargetError, Unsupported) as exc:
            log.info("no names index for %s: %s", self.path, exc)
            return {}
        progress = self._progress if len(info) > _REPORT_ABOVE else None
        alt = open_alt(sections)
        alt_str = alt.get(".debug_str") if alt is not None else b""
        names = scan_global_names(info, abbrev, strings, progress, alt_str)
        if alt is not None:  # its partial units' names: found in them (altfile.ALT_BASE)
            alt_strings = (alt_str, alt.get(".debug_line_str"), alt.get(".debug_str_offsets"))
            shared = scan_global_names(alt.get(".debug_info"), alt.get(".debug_abbrev"), alt_strings)
            for name, offsets in shared.items():
                names.setdefault(name, []).extend(ALT_BASE + offset for offset in offsets)
        if progress is not None:
            progress(f"global names of {os.path.basename(self.path)} indexed", 1.0)
        log.debug("names of %s indexed in %.3f s", self.path, time.perf_counter() - started)
        if self._cache is not None:
            self._cache.store(key, identity, {"names": names})
        return names
