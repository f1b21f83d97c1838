"""An index of one image's C++ and Rust type names, as gdb keeps one.

Pretty printers look types up by their full names (`std::vector<int>::value_type`,
`std::_Rb_tree_node<std::pair<const int, int> >`); found by walking DIEs with pyelftools,
each first lookup in a big unit cost about a second. This scan reads the raw
.debug_info (and DWARF 4's .debug_types) once: in C++ and Rust units only (a C library
defines no `a::b` and is skipped at its unit's first DIE), it enters namespaces and
class bodies, jumps over functions and members by their sibling links, and keeps each
struct, class, union, enum and typedef under its qualified name's key (typekeys.py),
with the DIE's place. The index is cached on disk beside the others (by build id).
"""

from __future__ import annotations

import logging
import struct
import threading
import time
from dataclasses import dataclass, field

from elftools.dwarf.enums import ENUM_DW_AT, ENUM_DW_TAG

from aliceserver.debuggers.symbols.dwarf.abbrevs import AbbrevTable, UnitShape
from aliceserver.debuggers.symbols.dwarf.altfile import ALT_BASE, open_alt
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.globalnames import _Scanner
from aliceserver.debuggers.symbols.dwarf.languages import MIPS_ASSEMBLER, QUALIFIED_TYPE_NAMES
from aliceserver.debuggers.symbols.dwarf.rawread import UT_SPLIT_TYPE, UT_TYPE, uleb, unit_length
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections, FileIdentity
from aliceserver.errors import TargetError, Unsupported

log = logging.getLogger(__name__)

_TAG_PARTIAL_UNIT = ENUM_DW_TAG["DW_TAG_partial_unit"]
TAG_STRUCT, TAG_CLASS, TAG_UNION, TAG_ENUM, TAG_TYPEDEF, TAG_BASE, _TAG_NAMESPACE = (
    ENUM_DW_TAG["DW_TAG_" + name]
    for name in ("structure_type", "class_type", "union_type", "enumeration_type", "typedef",
                 "base_type", "namespace")
)  # fmt: skip
_TYPE_TAGS = frozenset((TAG_STRUCT, TAG_CLASS, TAG_UNION, TAG_ENUM, TAG_TYPEDEF, TAG_BASE))
_SCOPES = frozenset((TAG_STRUCT, TAG_CLASS, TAG_UNION))  # entered for their nested types
_AT_SIBLING, _AT_NAME, _AT_LANGUAGE, _AT_DECLARATION, _AT_SPECIFICATION, _AT_SIGNATURE, \
    _AT_STR_OFFSETS_BASE = (ENUM_DW_AT["DW_AT_" + name]
                            for name in ("sibling", "name", "language", "declaration",
                                         "specification", "signature", "str_offsets_base"))  # fmt: skip
_WANTED = frozenset((_AT_SIBLING, _AT_NAME, _AT_LANGUAGE, _AT_DECLARATION, _AT_SPECIFICATION,
                     _AT_SIGNATURE, _AT_STR_OFFSETS_BASE))  # fmt: skip
ANONYMOUS = "(anonymous namespace)"

# Entry flags
DECLARATION = 1  # DW_AT_declaration: the definition is elsewhere (another unit, a type unit)
IN_DEBUG_TYPES = 2  # the DIE is in DWARF 4's .debug_types, not .debug_info


@dataclass(frozen=True, slots=True)
class TypeEntry:
    """One DIE named by a key: where it is, and the scope DIE it is declared in."""

    offset: int  # of the DIE, in its section
    unit: int  # offset of its unit's header
    tag: int
    flags: int
    scope: int  # offset of the enclosing namespace/class DIE, or of the unit's top DIE

    @property
    def declaration(self) -> bool:
        return bool(self.flags & DECLARATION)


@dataclass(slots=True)
class TypeNames:
    """What a scan found: key -> entries (as plain tuples, for the cache), the scopes'
    parents, and how many units were indexed."""

    types: dict[str, list[tuple[int, int, int, int, int]]] = field(default_factory=dict)
    parents: dict[int, int] = field(default_factory=dict)  # scope DIE -> its parent scope
    units: int = 0  # C++/Rust units indexed (0: nothing in this image has such names)
    skipped: int = 0  # units of other languages (C...) with types not in the index
    # a type unit's signature -> its type's place (DW_FORM_ref_sig8 references)
    signatures: dict[int, tuple[int, int, int, int, int]] = field(default_factory=dict)
    complete: bool = True  # False: the image could not be read, nothing is known


class _TypeScanner(_Scanner):
    """Walks one section's units; see the module's docstring."""

    def __init__(self, info: bytes, abbrev: bytes, strings: tuple[bytes, bytes, bytes],
                 out: TypeNames, flags: int) -> None:  # fmt: skip
        super().__init__(info, abbrev, strings, wanted=_WANTED)
        self.out = out
        self._flags = flags  # IN_DEBUG_TYPES for .debug_types
        self._keys: dict[tuple[str, str], str] = {}
        # The unit's recorded DIEs -> (their prefix, their scope): a type unit defines its
        # type at the top, with DW_AT_specification to a declaration in its namespace.
        self._declared: dict[int, tuple[str, int]] = {}
        self._type_die = (-1, 0)  # a type unit's type: (its offset, the unit's signature)
        self.language: int | None = None  # the first unit's DW_AT_language: dwz's partial units'
        self.deferred: list[tuple[int, int]] = []  # partial units scanned once it is known

    def _open_unit(self, start: int, end: int) -> tuple[UnitShape, AbbrevTable, int, int | None] | None:
        """As _open, type units too: (unit, abbreviations, first DIE, type signature)."""
        _length, osize, pos = unit_length(self.info, start)
        (version,) = struct.unpack_from("<H", self.info, pos)
        signature: int | None = None
        if self._flags & IN_DEBUG_TYPES and version == 4:
            abbrev_offset = int.from_bytes(self.info[pos + 2 : pos + 2 + osize], "little")
            asize = self.info[pos + 2 + osize]
            signature = int.from_bytes(self.info[pos + 3 + osize : pos + 11 + osize], "little")
            type_offset = int.from_bytes(self.info[pos + 11 + osize : pos + 11 + 2 * osize], "little")
            first = pos + 11 + 2 * osize
        elif version >= 5 and self.info[pos + 2] in (UT_TYPE, UT_SPLIT_TYPE):
            asize = self.info[pos + 3]
            abbrev_offset = int.from_bytes(self.info[pos + 4 : pos + 4 + osize], "little")
            signature = int.from_bytes(self.info[pos + 4 + osize : pos + 12 + osize], "little")
            type_offset = int.from_bytes(self.info[pos + 12 + osize : pos + 12 + 2 * osize], "little")
            first = pos + 12 + 2 * osize
        else:
            opened = self._open(start, end)
            return None if opened is None else (*opened, None)
        unit = UnitShape(start, end, osize, asize, version)
        table = self._abbrevs.table(abbrev_offset, unit)
        self._type_die = (start + type_offset, signature)
        return unit, table, first, signature

    def scan_unit(self, start: int, end: int) -> None:
        self._type_die = (-1, 0)
        opened = self._open_unit(start, end)
        if opened is None:
            return
        unit, table, pos, _signature = opened
        self._unit = unit
        top_offset = pos
        code, pos = uleb(self.info, pos)
        top = table[code] if code else None
        if top is None or not top.children:
            return
        values, pos = self._attributes(top, pos)
        language = values.get(_AT_LANGUAGE)
        if language is None and top.tag == _TAG_PARTIAL_UNIT:  # dwz's: its importers' language
            if self.language is None:
                self.deferred.append((start, end))  # dwz writes them first: known later
                return
            language = self.language
        if self.language is None and language is not None:
            self.language = int(language)
        if language not in QUALIFIED_TYPE_NAMES:  # C..., and most of a C library's units
            self.out.skipped += language != MIPS_ASSEMBLER  # gas's units define no types
            return
        base = values.get(_AT_STR_OFFSETS_BASE)
        if isinstance(base, int):
            self._str_bases[unit.offset] = base
        self.out.units += 1
        self._declared = {}
        self._walk(table, pos, end, top_offset)

    def _walk(self, table: AbbrevTable, pos: int, end: int, top: int) -> None:  # noqa: C901
        info = self.info
        # Per open level: (whether its children are read, their name prefix, its offset).
        levels: list[tuple[bool, str, int]] = [(True, "", top)]
        read, prefix, scope = levels[-1]
        while pos < end and levels:
            at = pos
            code = info[pos]
            if code < 0x80:
                pos += 1
            else:
                code, pos = uleb(info, pos)
            if code == 0:
                levels.pop()
                if levels:
                    read, prefix, scope = levels[-1]
                continue
            entry = table[code]
            tag = entry.tag
            if read and (tag in _TYPE_TAGS or tag == _TAG_NAMESPACE):
                values, pos = self._attributes(entry, pos)
                name = values.get(_AT_NAME)
                inner: str | None = None
                if tag == _TAG_NAMESPACE:
                    inner = f"{prefix}{name if isinstance(name, str) else ANONYMOUS}::"
                elif isinstance(name, str) and name:
                    where = self._declared_at(values.get(_AT_SPECIFICATION), prefix, scope)
                    self._record_type(where[0], name, at, tag, values, where[1])
                    self._declared[at] = where
                    if tag in _SCOPES:
                        inner = f"{where[0]}{name}::"
                if entry.children:
                    if inner is not None:
                        self.out.parents[at] = self._declared.get(at, (prefix, scope))[1]
                        levels.append((True, inner, at))
                        read, prefix, scope = levels[-1]
                        continue
                    after = self._after_children(values, pos, end)
                    if after is not None:
                        pos = after
                    else:
                        levels.append((False, prefix, scope))
                        read = False
                continue
            if entry.fixed >= 0 and not entry.children:
                pos += entry.fixed
                continue
            pos, inside = self._skip(entry, pos, end)
            if inside:
                levels.append((False, prefix, scope))
                read = False

    def _declared_at(self, spec: int | str | None, prefix: str, scope: int) -> tuple[str, int]:
        """Where a DIE's name belongs: its specification's place, or where it is."""
        if isinstance(spec, int):
            return self._declared.get(self._unit.offset + spec, (prefix, scope))
        return prefix, scope

    def _record_type(self, prefix: str, name: str, at: int, tag: int, values: dict[int, int | str],
                scope: int) -> None:  # fmt: skip
        flags = self._flags
        if values.get(_AT_DECLARATION) or _AT_SIGNATURE in values:
            flags |= DECLARATION
        place = (at, self._unit.offset, tag, flags, scope)
        if at == self._type_die[0]:
            self.out.signatures[self._type_die[1]] = place
        types = self.out.types
        key = self._key(prefix, name)
        types.setdefault(key, []).append(place)
        if ANONYMOUS in prefix:  # reachable unqualified too, as in C++
            plain = self._key(prefix.replace(ANONYMOUS + "::", ""), name)
            if plain != key:
                types.setdefault(plain, []).append(place)

    def _key(self, prefix: str, name: str) -> str:
        known = self._keys.get((prefix, name))
        if known is None:
            # The prefix's key is a prefix of the whole key: keys are made per part.
            from aliceserver.debuggers.symbols.dwarf.typekeys import type_key

            known = self._keys[prefix, name] = type_key(prefix + name)
        return known


def scan_type_names(sections: ElfSections, language: int | None = None, alt_str: bytes = b"") -> TypeNames:
    """The type names of `sections`' file; `language`: its partial units' when none of its
    units has one (an alt file's); `alt_str`: its alt file's .debug_str."""
    out = TypeNames()
    strings = (sections.get(".debug_str"), sections.get(".debug_line_str"),
               sections.get(".debug_str_offsets"))  # fmt: skip
    abbrev = sections.get(".debug_abbrev")
    for name, flags in ((".debug_info", 0), (".debug_types", IN_DEBUG_TYPES)):
        if sections.header(name) is None:
            continue
        scanner = _TypeScanner(sections.get(name), abbrev, strings, out, flags)
        scanner.language, scanner.alt_str = language, alt_str
        try:
            units = scanner.units()
        except (TargetError, struct.error) as exc:
            log.warning("unreadable %s: %s", name, exc)
            continue
        for start, end in units:
            _scan(scanner, start, end)
        if scanner.language is not None:
            for start, end in scanner.deferred:
                _scan(scanner, start, end)
        language = language or scanner.language
    alt = open_alt(sections)
    if alt is not None:  # dwz's: its types at ALT_BASE and up, as altfile.py sees them
        _add_shifted(out, scan_type_names(alt, language))
    return out


def _scan(scanner: _TypeScanner, start: int, end: int) -> None:
    try:
        scanner.scan_unit(start, end)
    except (IndexError, KeyError, ValueError, struct.error, TargetError) as exc:
        log.debug("unit at %#x not indexed for types: %s", start, exc)


def _add_shifted(out: TypeNames, alt: TypeNames) -> None:
    """The alt file's type names into `out`, their offsets seen at ALT_BASE and up."""
    for key, places in alt.types.items():
        out.types.setdefault(key, []).extend(
            (at + ALT_BASE, unit + ALT_BASE, tag, flags, scope + ALT_BASE)
            for at, unit, tag, flags, scope in places)  # fmt: skip
    out.parents.update({scope + ALT_BASE: parent + ALT_BASE for scope, parent in alt.parents.items()})
    out.units += alt.units
    out.skipped += alt.skipped


_PAYLOAD_VERSION = 4  # 3: C++17/20 units indexed, C17 ones not; 4: dwz's partial units, alt file
_PAYLOAD = ("types", "parents", "units", "skipped", "signatures")  # TypeNames' fields, in order


class TypeNameIndex:
    """One image's type names: scanned on the first lookup (or read from the on-disk
    cache), then kept; answers and misses are dictionary lookups."""

    def __init__(self, path: str, build_id: str | None, cache: IndexCache | None = None) -> None:
        self.path = path
        self._build_id = build_id
        self._cache = cache
        self._names: TypeNames | None = None
        self._lock = threading.Lock()
        self.scans = 0  # how many times the DWARF was scanned (tests: once at most)

    def names(self) -> TypeNames:
        with self._lock:
            if self._names is None:
                self._names = self._load()
            return self._names

    def lookup(self, name: str) -> list[TypeEntry] | None:
        """The DIEs named `name` (any spelling of it), definitions first; None when the
        image could not be indexed (the caller looks the slow way)."""
        names = self.names()
        if not names.complete:
            return None
        from aliceserver.debuggers.symbols.dwarf.typekeys import type_key

        found = names.types.get(type_key(name))
        if not found:
            return []
        entries = [TypeEntry(*place) for place in found]
        return sorted(entries, key=lambda e: e.declaration)

    def by_signature(self, signature: int) -> TypeEntry | None:
        """The type defined by the type unit with this signature."""
        place = self.names().signatures.get(signature)
        return None if place is None else TypeEntry(*place)

    @property
    def covers_all(self) -> bool:
        """Whether every unit's types are indexed (no C unit): a miss is then an answer
        for plain names too."""
        names = self.names()
        return names.complete and names.skipped == 0

    @property
    def has_qualified_names(self) -> bool:
        """Whether any unit is C++ or Rust (else `a::b` cannot name anything here)."""
        names = self.names()
        return names.units > 0 or not names.complete

    def _load(self) -> TypeNames:
        try:
            ident = FileIdentity.of(self.path)
        except OSError as exc:
            log.info("no type names index for %s: %s", self.path, exc)
            return TypeNames(complete=False)
        key = IndexCache.key_for(self._build_id, self.path, ident.mtime_ns, ident.size) + "-types"
        identity = (ident.path, ident.mtime_ns, ident.size, self._build_id, _PAYLOAD_VERSION)
        if self._cache is not None:
            payload = self._cache.load(key, identity)
            if payload is not None and all(name in payload for name in _PAYLOAD):
                log.debug("type names of %s read from the cache", self.path)
                return TypeNames(*(payload[name] for name in _PAYLOAD))
        started = time.perf_counter()
        self.scans += 1
        try:
            sections = ElfSections(self.path)
            alt = open_alt(sections)
            names = scan_type_names(sections, alt_str=alt.get(".debug_str") if alt is not None else b"")
        except (TargetError, Unsupported) as exc:
            log.info("no type names index for %s: %s", self.path, exc)
            return TypeNames(complete=False)
        log.debug("type names of %s indexed in %.3f s", self.path, time.perf_counter() - started)
        if self._cache is not None:
            self._cache.store(key, identity, {name: getattr(names, name) for name in _PAYLOAD})
        return names
