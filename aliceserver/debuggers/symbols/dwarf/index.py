"""The per-binary location index: file:line <-> addresses and function names -> breakpoints.

Built from unit summaries, line program headers, `.debug_aranges` and the ELF symbol
table, never from the DIE tree; cached on disk. The line rows are linerows.LineIndex's,
decoded per unit on the first query that needs them. Addresses are link-time.
"""

from __future__ import annotations

import logging
import os
import struct
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from aliceserver.debuggers.symbols.dwarf import indexahead, inflatedcache, names, prologue
from aliceserver.debuggers.symbols.dwarf.addresslines import AddressLineIndex, address_line_index
from aliceserver.debuggers.symbols.dwarf.altfile import MissingAltFile as MissingAltFile
from aliceserver.debuggers.symbols.dwarf.altfile import check_alt_file
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.funclist import FunctionList, are_name_starts, is_packed
from aliceserver.debuggers.symbols.dwarf.lineparts import (
    LineParts,
    is_packed_or_whole,
    packed_for_cache,
)
from aliceserver.debuggers.symbols.dwarf.linerows import LineIndex, Unit
from aliceserver.debuggers.symbols.dwarf.lines import StringSections
from aliceserver.debuggers.symbols.dwarf.model import FunctionMatch, LineResolution, SourceLine
from aliceserver.debuggers.symbols.dwarf.namepart import Progress, build_name_part, index_key
from aliceserver.debuggers.symbols.dwarf.rawread import unit_length
from aliceserver.debuggers.symbols.dwarf.rowcache import RowCache
from aliceserver.debuggers.symbols.dwarf.sections import (
    DEFAULT_DEBUG_DIRS,
    ElfSections,
    open_dwarf,
)
from aliceserver.debuggers.symbols.dwarf.symtab_files import SymtabName, symtab_names
from aliceserver.debuggers.symbols.dwarf.units import build_line_part
from aliceserver.debuggers.symbols.elf import ElfImage, ElfSymbol
from aliceserver.debuggers.symbols.symtab import are_packed_addresses, is_packed_table
from aliceserver.errors import TargetError, Unsupported

log = logging.getLogger(__name__)

_ABBREV_WINDOW = 1 << 16  # bytes of .debug_abbrev read first for one unit's table
_NAMED_KEPT = 4096  # functions_named answers kept
_MATCHES_KEPT = 65536  # functions' matches kept (rbreak . asks each twice: by address, by name)
_EXTRAS_EVERY = 0.5  # seconds between writes of remembered answers


class DebugInfo:
    """Line tables and function lookups of one ELF image (thread-safe, lazily decoded)."""

    def __init__(self, image: ElfImage, main: ElfSections, dwarf: ElfSections,
                 payload: dict[str, Any], stored_rows: RowCache | None = None,
                 rebuild: Callable[[bool], dict[str, Any]] | None = None) -> None:  # fmt: skip
        self.image = image
        self.debug_file = dwarf.path  # where the DWARF was read from
        self._main = main
        self._dwarf = dwarf
        # Decoded on the first query for lines: a library searched only for a name never is.
        rebuild = rebuild or (lambda _damaged: build_line_part(image, dwarf, None))
        self._line_parts = LineParts(payload, rebuild)
        self._stored_rows = stored_rows
        self._line_index: LineIndex | None = None
        # Before the whole line part is needed: the units addresses were asked about only
        self._address_index: AddressLineIndex | None | bool = None  # False: none can be
        self._line_index_lock = threading.Lock()
        self._demangled: dict[str, str] = payload["demangled"]
        self._linkages: dict[str, str] | None = None  # the other way round, made on first use
        self._lock = threading.Lock()  # the extras
        self._functions = FunctionList(payload["functions"], payload["function_starts"])
        self._source_names: dict[str, str] | None = None  # absolute path -> DW_AT_name
        self._symtab_names: dict[str, SymtabName | None] = {}  # path -> gdb's name for it
        self._unit_symtab_names: dict[int, dict[str, SymtabName]] = {}  # line table -> those
        self._line_strings: StringSections | None = None  # read once for every unit's names
        # Answers found later by walking DIEs (inlined copies), cached beside the index.
        self._store: tuple[IndexCache, str, Any] | None = None
        self._extras: dict[str, Any] | None = None
        self._unwritten = 0  # answers remembered since the last write
        self._held = 0  # answers remembered without a write of their own (written with the next)
        self._written_at = -_EXTRAS_EVERY  # time.monotonic() of the last write
        self._symbols_store: tuple[IndexCache, str, Any] | None = None  # the debug file's symbols
        self._location_lists: dict[int, bool] = {}  # unit -> has a location list (gdb)
        # `break NAME`'s answers: the binary's, so they hold for its life (an editor sends
        # every function breakpoint again at each change; each took 150 us)
        self._named: dict[str, tuple[FunctionMatch, ...]] = {}
        # each function's match: a prologue analysis and line lookups (150 us) asked again
        # by name after by address (rbreak: its list, then `break NAME` on each)
        self._matches: dict[tuple[str, str, int, int], FunctionMatch] = {}
        self.built = False  # its names were indexed now (no earlier session's index)

    @property
    def _units(self) -> list[Unit]:
        return self._line_parts.get()[0]

    @property
    def _paths(self) -> list[str]:
        return self._line_parts.get()[1]

    @property
    def _headers(self) -> dict[int, tuple[Any, ...]]:
        return self._line_parts.get()[2]

    @property
    def _lines(self) -> LineIndex:
        lines = self._line_index
        if lines is None:
            with self._line_index_lock:
                if self._line_index is None:
                    units, paths, headers, ranges = self._line_parts.get()
                    rows = self._stored_rows
                    self._line_index = LineIndex(self._dwarf, units, paths, headers, ranges, rows)
                    if isinstance(self._address_index, AddressLineIndex):  # its rows stay good
                        self._line_index._rows.update(self._address_index.decoded_rows())
                lines = self._line_index
        return lines

    @property
    def _at(self) -> LineIndex:
        """The index for queries by address: the whole one when it is here (built, or in
        the cache), else one that reads only the units asked about (addresslines.py)."""
        lines = self._line_index
        if lines is not None or self._line_parts.available():
            return lines or self._lines
        with self._line_index_lock:
            if self._address_index is None:
                self._address_index = address_line_index(self._dwarf, self._stored_rows) or False
            partial = self._address_index
        return partial if isinstance(partial, AddressLineIndex) else self._lines

    # --- loading -----------------------------------------------------------------------
    @classmethod
    def load(cls, image: ElfImage, *, cache: IndexCache | None = None,
             progress: Progress | None = None, debug_dirs: Iterable[str] = DEFAULT_DEBUG_DIRS,
             opened: tuple[ElfSections, ElfSections] | None = None) -> DebugInfo | None:  # fmt: skip
        """The debug info of `image` (from a separate debug file when it has none itself),
        or None when there is no DWARF line info. The index comes from `cache` when it
        holds one for this build (a child building it ahead is waited for: indexahead.py),
        else it is built (and stored there). `opened`: open_dwarf's answer for `image`
        already (sectionprefetch.py)."""
        try:
            opened = opened or open_dwarf(image.path, image.build_id, debug_dirs, image.target_files)
        except Unsupported as exc:
            log.info("no usable DWARF in %s: %s", image.path, exc)
            return None
        if opened is None:
            return None
        main, dwarf = opened
        check_alt_file(dwarf)  # dwz's alt file: gdb reads no DWARF without it
        try:
            key, identity = index_key(image.build_id, main.path, dwarf.path)
        except OSError as exc:
            raise TargetError(f"cannot stat {image.path}: {exc}") from exc
        if cache is not None:  # (its compressed sections are kept inflated there)
            inflatedcache.remember(dwarf, cache, key)
        ahead = cache is not None and indexahead.built_ahead(cache, key)  # (waits for it)
        payload = cache.load(key, identity) if cache is not None else None
        built = payload is None or not _valid_payload(payload)
        if payload is not None and not built:
            how = "built by this session's child" if ahead else "read from the cache"
            log.debug("index of %s %s", image.path, how)
        else:  # the name part now; the line part when a query first needs lines
            started = time.perf_counter()
            payload = build_name_part(image, progress)
            log.debug("indexed the names of %s in %.3f s", image.path, time.perf_counter() - started)
            if cache is not None:
                cache.store(key, identity, payload)
        if progress is not None:
            progress(f"debug info of {os.path.basename(image.path)} loaded", 1.0)
        image.adopt_symbols(payload["symbols"], payload["symbol_addresses"])
        rows = RowCache(cache, key, identity) if cache is not None else None
        names = {k: payload[k] for k in ("demangled", "functions", "function_starts", "symbols", "symbol_addresses")}

        def rebuild(damaged: bool) -> dict[str, Any]:  # none yet, or one never to trust
            started = time.perf_counter()
            built = build_line_part(image, dwarf, progress)  # (a long build is shown again)
            log.debug("indexed the lines of %s in %.3f s", image.path, time.perf_counter() - started)
            if progress is not None:
                progress(f"line tables of {os.path.basename(image.path)} read", 1.0)
            if cache is not None:
                if damaged:
                    cache.damaged(cache.path_for(key), "its line part is unreadable")
                cache.store(key, identity, packed_for_cache({**names, **built}))
            names.clear()  # (called once: LineParts keeps what it gives)
            return built

        info = cls(image, main, dwarf, payload, rows, rebuild)
        info.built = built or ahead  # (by this session's child)
        if cache is not None:
            info._store = (cache, key + "-extra", identity)
            info._symbols_store = (cache, key + "-symbols", identity)
        return info

    @property
    def stored_rows(self) -> RowCache | None:
        """Where this binary's decoded line rows and unit scopes are kept (rowcache.py)."""
        return self._stored_rows

    def adopt_debug_file_symbols(self, image: ElfImage) -> None:
        """Give `image`, the separate debug file this was read from, the symbol table an
        earlier session kept (parsing libc6-dbg's took 10 ms of each first stop), else keep
        its table for the next session. The key changes with the binary and the debug file."""
        if self._symbols_store is None or image.path != self.debug_file:
            return
        cache, key, identity = self._symbols_store
        payload = cache.load(key, identity)
        packed = payload.get("symbols") if payload is not None else None
        if packed is not None and is_packed_table(packed):
            image.adopt_symbols(packed)
        else:
            cache.store(key, identity, {"symbols": image.packed_symbols()})

    # --- queries -----------------------------------------------------------------------
    def has_line_info(self) -> bool:
        return bool(self._headers)

    def source_name(self, path: str) -> str | None:
        """The name the debug info gives the source file at `path` (absolute, normalized),
        as gdb shows it in `file=`: a unit's DW_AT_name for its primary file (relative when
        it was compiled with a relative path), else `path`. None: no line table names it."""
        names_of = self._source_names
        if names_of is None:
            names_of = {}
            for _offset, _stmt, name, comp_dir, _producer in self._units:
                if name:
                    full = os.path.normpath(os.path.join(comp_dir, name)) if comp_dir else name
                    names_of.setdefault(full, name)
            self._source_names = names_of
        symtab = self.symtab_name(path)
        if symtab is not None:
            return symtab.filename
        found = names_of.get(path)
        if found is not None:
            return found
        return path if self.match_file(path) else None

    def symtab_name(self, path: str) -> SymtabName | None:
        """gdb's names for the file at normalized `path` (symtab_files.py) in the first
        unit whose line table names it; None: none does."""
        if path in self._symtab_names:
            return self._symtab_names[path]
        found = None
        path_id = next((i for i, p in enumerate(self._paths) if p == path), None)
        for _offset, stmt, name, comp_dir, _producer in self._units if path_id is not None else ():
            header = self._headers.get(stmt)
            if header is not None and path_id in header[-1]:
                found = self._names_in_unit(stmt, comp_dir, name).get(path)
                break
        self._symtab_names[path] = found
        return found

    def symtab_name_at(self, address: int, path: str) -> SymtabName | None:
        """gdb's name for `path` in the symtab of the unit covering link-time `address`
        (a header's name differs from unit to unit: `./libio/libioP.h`, `../libio/libioP.h`)."""
        lines = self._at
        unit = lines.unit_at(address)
        if unit is None:
            return None
        _offset, stmt, name, comp_dir, _producer = lines.unit(unit)
        return self._names_in_unit(stmt, comp_dir, name).get(path) if stmt >= 0 else None

    def _names_in_unit(self, stmt: int, comp_dir: str, name: str) -> dict[str, SymtabName]:
        found = self._unit_symtab_names.get(stmt)
        if found is None:
            strings = self._line_strings
            if strings is None:
                strings = self._line_strings = StringSections(
                    self._dwarf.get(".debug_line_str"), self._dwarf.get(".debug_str"),
                    self._dwarf.get(".debug_str_offsets"))  # fmt: skip
            try:
                found = symtab_names(self._line_table(stmt), 0, comp_dir, name, strings)
            except (TargetError, IndexError, ValueError, struct.error) as error:  # as the index build
                log.debug("no symtab names at line table %#x: %s", stmt, error)
                found = {}
            self._unit_symtab_names[stmt] = found
        return found

    def _line_table(self, stmt: int) -> bytes:
        """The line table at `stmt` alone, not all of .debug_line: each frame of a stack in
        another unit read CPython's whole 2.7 MB again to name its file."""
        head = self._dwarf.read(".debug_line", stmt, 12)
        length, _osize, start = unit_length(head, 0)
        return self._dwarf.read(".debug_line", stmt, start + length)

    def resolve_line(
        self, file: str, line: int, block_of: Callable[[int], int] | None = None
    ) -> LineResolution | None:
        """Where `break FILE:LINE` binds, as gdb: all units, instances and inlined copies in
        other functions; the next line with code when `line` has none; after the prologue
        when the line is a function's first. None when no such file or no code after it.
        `block_of(address)`: gdb's block holding an address (an inlined copy, a lexical
        block declaring something; 0: the function's), so that a line in two blocks of one
        function binds in both, as gdb's one location per block."""
        path_ids = self.match_file(file)
        if not path_ids:
            return None
        at_or_after = self._lines.rows_at_or_after(path_ids, line)
        if at_or_after is None:
            return None
        bound, found = at_or_after
        addresses, moved = self._one_per_function(sorted({a for a, _p, _s in found}), block_of)
        reported = bound
        if moved:  # as gdb: the line of the address after the prologue
            where = self.location_at(min(moved))
            reported = where.line if where is not None else bound
        return LineResolution(
            file=self._paths[min(found)[1]],
            requested_line=line,
            line=reported,
            addresses=tuple(sorted(set(addresses))),
            past_prologue=tuple(sorted(set(moved))),
        )

    def functions_named(self, name: str) -> list[FunctionMatch]:
        """Functions `break NAME` stops in: exact and demangled names, `ns::func`,
        `Class::method` (every overload), unqualified `method`, template instances,
        Rust paths; `name(int)` picks an overload. Sorted by address."""
        found = self._named.get(name)
        if found is None:
            if len(self._named) >= _NAMED_KEPT:  # names typed by a user: few, but no limit
                self._named.clear()
            found = self._named[name] = tuple(self._functions_named(name))
        return list(found)

    def _functions_named(self, name: str) -> list[FunctionMatch]:
        key, params = names.normalize_query(name)
        if not key:
            return []
        comps = names.split_qualified(key)
        needle = names.strip_templates(comps[-1]) if comps else key
        seen: set[int] = set()
        found: list[FunctionMatch] = []
        for linkage, demangled, low, size in self._functions.matching(needle, self._demangled):
            if low in seen or key not in names.lookup_keys(linkage, demangled):
                continue
            if params is not None:
                actual = names.strip_signature(demangled)[1]
                if actual is None or not names.same_params(actual, params):
                    continue
            seen.add(low)
            found.append(self._function_match(linkage, demangled, low, size))
        found.sort(key=lambda f: f.low)
        return found

    def linkage_name(self, demangled: str) -> str | None:
        """The mangled symbol name demangled as `demangled` (gdb's natural name of a C++
        minimal symbol: `operator new(unsigned long)@plt` is `_Znwm@plt`); None: none."""
        if self._linkages is None:
            self._linkages = {text: name for name, text in self._demangled.items()}
        return self._linkages.get(demangled)

    def function_at(self, address: int) -> FunctionMatch | None:
        """The function (from the symbol table) containing `address`."""
        hit = self.image.symbol_at(address)
        if hit is None or hit[0].kind != "func":
            return None
        symbol = hit[0]
        return self._function_match(
            symbol.name, self._demangled.get(symbol.name, symbol.name), symbol.address, symbol.size
        )

    def unit_offset_of_file(self, path: str) -> int | None:
        """The .debug_info offset of the unit whose primary file (DW_AT_name under its
        DW_AT_comp_dir) is `path` (absolute, normalized); None: no unit was compiled from it."""
        for offset, _stmt, name, comp_dir, _producer in self._units:
            if name and offset >= 0:
                full = os.path.normpath(os.path.join(comp_dir, name)) if comp_dir else name
                if full == path:
                    return offset
        return None

    def cu_offset_at(self, address: int) -> int | None:
        """The .debug_info offset of the compilation unit covering `address`."""
        lines = self._at
        unit = lines.unit_at(address)
        offset = None if unit is None else lines.unit(unit)[0]
        return offset if offset is not None and offset >= 0 else None

    # --- for the DIE-walking layers (inlined copies) ------------------------------------
    @property
    def sections(self) -> ElfSections:
        """The sections of the file holding the DWARF."""
        return self._dwarf

    def unit_offsets(self) -> list[int]:
        lines = self._at
        if isinstance(lines, AddressLineIndex):  # (no need to build the line part)
            return lines.unit_offsets()
        return [u[0] for u in self._units if u[0] >= 0]

    def units_named(self, name: str) -> list[int]:
        """The offsets of the units whose DW_AT_name is `name`."""
        return [u[0] for u in self._units if u[0] >= 0 and u[2] == name]

    def unit_files(self) -> list[tuple[int, str, str, list[str]]]:
        """Each unit as (offset, DW_AT_name, that file's absolute path, the absolute paths
        its line table names, in table order): gdb's `info sources` per unit."""
        found = []
        for offset, stmt, name, comp_dir, _producer in self._units:
            if offset < 0:
                continue
            primary = os.path.normpath(os.path.join(comp_dir, name)) if name else ""
            header = self._headers.get(stmt)
            paths = [self._paths[i] for i in header[-1]] if header is not None else []
            found.append((offset, name, primary, [p for p in paths if p]))
        return found

    def remembered(self, kind: str, key: str) -> Any:
        """A value `remember`ed for (kind, key), in this session or one before; None."""
        with self._lock:
            self._write_extras()
            return self._load_extras().get(kind, {}).get(key)

    def remember(self, kind: str, key: str, value: Any, write: bool = True) -> None:
        """Keep `value` (plain containers only) for (kind, key), on disk as well; without
        `write`, on disk with the next remember's (one due right after: a throttled write
        would leave the later answer of a pair unwritten at the session's end)."""
        with self._lock:
            extras = self._load_extras()
            extras.setdefault(kind, {})[key] = value
            if not write:
                self._held += 1
                return
            self._unwritten += 1 + self._held
            self._held = 0
            self._write_extras()

    def _write_extras(self) -> None:
        """Each write holds every answer so far: answers coming in a burst (rbreak . on
        10,000 functions) are written together, at most every _EXTRAS_EVERY seconds (a
        write each took 30 s for 10,000); one asked for later writes what is left."""
        if self._store is None or not self._unwritten or time.monotonic() - self._written_at < _EXTRAS_EVERY:
            return
        cache, store_key, identity = self._store
        extras = self._load_extras()
        # Another session of this module (ld.so's: every session's) may have written since
        # this one read the file: keep its answers, or the last writer's drops them all.
        payload = cache.load(store_key, identity)
        written = payload.get("extras") if payload is not None else None
        for kind, answers in written.items() if isinstance(written, dict) else ():
            if isinstance(answers, dict):
                kept = extras.setdefault(kind, {})
                for key, value in answers.items():
                    kept.setdefault(key, value)
        cache.store(store_key, identity, {"extras": extras})
        self._unwritten, self._written_at = 0, time.monotonic()

    def _load_extras(self) -> dict[str, Any]:
        if self._extras is None:
            self._extras = {}
            if self._store is not None:
                cache, store_key, identity = self._store
                payload = cache.load(store_key, identity)
                extras = payload.get("extras") if payload is not None else None
                if isinstance(extras, dict):
                    self._extras = extras
        return self._extras

    # --- the line rows (linerows.LineIndex) ---------------------------------------------
    def source_files(self) -> list[str]:
        return self._lines.source_files()

    def match_file(self, file: str) -> set[int]:
        return self._lines.match_file(file)

    def line_start(self, file: str, line: int) -> int | None:
        return self._lines.line_start(file, line)

    def line_table(self, file: str) -> list[tuple[int, int]] | None:
        return self._lines.line_table(file)

    def location_at(self, address: int) -> SourceLine | None:
        return self._at.location_at(address)

    def line_range_at(self, address: int) -> tuple[int, int] | None:
        return self._at.line_range_at(address)

    def row_range_at(self, address: int) -> tuple[int, int] | None:
        return self._at.row_range_at(address)

    def is_statement_start(self, address: int) -> bool:
        return self._at.is_statement_start(address)

    def next_row_address(self, address: int) -> int | None:
        return self._at.next_row_address(address)

    def file_path(self, cu_offset: int, number: int) -> str | None:
        return self._at.file_path(cu_offset, number)

    # --- functions ---------------------------------------------------------------------
    def match_of(self, name: str, low: int, high: int) -> FunctionMatch:
        """The match of a function the symbol table does not name (its DWARF's: outofline.py)."""
        return self._function_match(name, name, low, high - low)

    def _function_match(self, linkage: str, demangled: str, low: int, size: int) -> FunctionMatch:
        key = (linkage, demangled, low, size)
        found = self._matches.get(key)
        if found is None:
            if len(self._matches) >= _MATCHES_KEPT:
                self._matches.clear()
            found = self._matches[key] = self._new_match(linkage, demangled, low, size)
        return found

    def _new_match(self, linkage: str, demangled: str, low: int, size: int) -> FunctionMatch:
        high = low + size
        address = prologue.breakpoint_address(self, low, high) if size else low
        where = self.location_at(address)
        return FunctionMatch(
            name=names.display_name(demangled),
            linkage_name=linkage,
            low=low,
            high=high,
            breakpoint_address=address,
            step_address=prologue.step_address(self, low, high) if size else low,
            file=where.file if where else None,
            line=where.line if where else None,
        )

    # --- what the prologue rules read (prologue.FunctionLines) ---------------------------
    def row_span(self, address: int) -> tuple[int, int, int] | None:
        return self._at.row_span(address)

    def rows_between(self, low: int, high: int) -> list[prologue.LineRow]:
        return self._at.rows_between(low, high)

    def prologue_end(self, low: int, high: int) -> int | None:
        return self._at.prologue_end(low, high)

    def read_code(self, address: int, size: int) -> bytes:
        return self._main.read_address(address, size)

    def producer_at(self, address: int) -> str:
        lines = self._at
        unit = lines.unit_at(address)
        return lines.unit(unit)[4] if unit is not None else ""

    def has_location_lists_at(self, address: int) -> bool:
        lines = self._at
        unit = lines.unit_at(address)
        offset = lines.unit(unit)[0] if unit is not None else -1
        if offset < 0:
            return False
        known = self._location_lists.get(offset)
        if known is None:
            known = self._location_lists[offset] = self._unit_has_location_lists(offset)
        return known

    def _unit_has_location_lists(self, offset: int) -> bool:
        try:
            header = self._dwarf.read(".debug_info", offset, 32)
            osize = 8 if header[:4] == b"\xff\xff\xff\xff" else 4
            start = 12 if osize == 8 else 4
            abbrev_at = start + (4 if header[start] >= 5 else 2)
            abbrev_offset = int.from_bytes(header[abbrev_at : abbrev_at + osize], "little")
            for size in (_ABBREV_WINDOW, None):
                table = self._dwarf.read(".debug_abbrev", abbrev_offset, size)
                found = prologue.abbreviations_use_location_lists(header, table)
                if found is not None:
                    return found
        except (TargetError, IndexError) as exc:
            log.warning("%s: unit at %#x: %s", self.debug_file, offset, exc)
        return False

    def _one_per_function(
        self, addresses: list[int], block_of: Callable[[int], int] | None = None
    ) -> tuple[list[int], list[int]]:
        """(the lowest address per function (per block in it, with `block_of`), each
        after the prologue when it is the entry; the addresses a prologue skip moved to)."""
        result: dict[object, int] = {}
        moved: list[int] = []
        blocks: dict[object, set[int]] = {}  # group -> inlined copies bound (asked on clashes)
        for address in addresses:
            hit = self.image.symbol_at(address)
            symbol: ElfSymbol | None = hit[0] if hit and hit[0].kind == "func" else None
            group: object = symbol.address if symbol is not None else ("at", address)
            if group in result:
                if block_of is None:
                    continue
                seen = blocks.setdefault(group, {block_of(result[group])})
                block = block_of(address)
                if block in seen:
                    continue
                seen.add(block)
                result[(group, block)] = address
                continue
            if symbol is not None and symbol.address == address and symbol.size:
                entry, end = address, address + symbol.size
                address = prologue.breakpoint_address(self, entry, end, by_line=True)
                if address != entry:
                    moved.append(address)
            result[group] = address
        return list(result.values()), moved


def _valid_payload(payload: dict[str, Any]) -> bool:
    try:
        return (
            is_packed_or_whole(payload)
            and isinstance(payload["demangled"], dict)
            and is_packed(payload["functions"])
            and are_name_starts(payload["function_starts"], payload["functions"])
            and is_packed_table(payload["symbols"])
            and are_packed_addresses(payload["symbol_addresses"], payload["symbols"])
        )
    except (KeyError, TypeError):
        return False
