"""The per-binary location index: file:line <-> addresses and function names -> breakpoints.

Built from unit summaries, line program headers, `.debug_aranges` and the ELF symbol
table, never from the DIE tree; cached on disk. Line programs are decoded per unit on the
first query that needs them. Addresses are link-time.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from aliceserver.debuggers.symbols.dwarf import names, prologue
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.funclist import FunctionList, is_packed
from aliceserver.debuggers.symbols.dwarf.lines import (
    END_SEQUENCE,
    IS_STMT,
    LineHeader,
    LineRows,
    decode_rows,
    header_from_tuple,
)
from aliceserver.debuggers.symbols.dwarf.model import FunctionMatch, LineResolution, SourceLine
from aliceserver.debuggers.symbols.dwarf.sections import (
    DEFAULT_DEBUG_DIRS,
    ElfSections,
    FileIdentity,
    open_dwarf,
)
from aliceserver.debuggers.symbols.dwarf.symtab_lines import file_line_table
from aliceserver.debuggers.symbols.dwarf.units import Progress, build_payload
from aliceserver.debuggers.symbols.elf import ElfImage, ElfSymbol
from aliceserver.debuggers.symbols.symtab import is_packed_table
from aliceserver.errors import TargetError, Unsupported

log = logging.getLogger(__name__)

# A unit: (.debug_info offset, line program offset or -1, name, comp_dir, producer).
_Unit = tuple[int, int, str, str, str]
_ABBREV_WINDOW = 1 << 16  # bytes of .debug_abbrev read first for one unit's table


class DebugInfo:
    """Line tables and function lookups of one ELF image (thread-safe, lazily decoded)."""

    def __init__(self, image: ElfImage, main: ElfSections, dwarf: ElfSections,
                 payload: dict[str, Any]) -> None:  # fmt: skip
        self.image = image
        self.debug_file = dwarf.path  # where the DWARF was read from
        self._main = main
        self._dwarf = dwarf
        self._units: list[_Unit] = payload["units"]
        self._paths: list[str] = payload["paths"]
        self._headers: dict[int, tuple[Any, ...]] = payload["headers"]
        self._demangled: dict[str, str] = payload["demangled"]
        ranges: list[tuple[int, int, int]] = payload["ranges"]
        self._range_lows = [r[0] for r in ranges]
        self._ranges = ranges
        self._unit_index = {u[0]: i for i, u in enumerate(self._units)}
        # path id -> line program offsets, basename -> path ids: built on the first file
        # query (a big library's take longer than loading its whole index)
        self._file_maps: tuple[dict[int, list[int]], dict[str, list[int]]] | None = None
        self._rows: dict[int, LineRows] = {}
        self._lock = threading.Lock()
        self._functions = FunctionList(payload["functions"])
        self._source_names: dict[str, str] | None = None  # absolute path -> DW_AT_name
        # Answers found later by walking DIEs (inlined copies), cached beside the index.
        self._store: tuple[IndexCache, str, Any] | None = None
        self._extras: dict[str, Any] | None = None
        self._location_lists: dict[int, bool] = {}  # unit -> has a location list (gdb)

    # --- loading -----------------------------------------------------------------------
    @classmethod
    def load(cls, image: ElfImage, *, cache: IndexCache | None = None,
             progress: Progress | None = None,
             debug_dirs: Iterable[str] = DEFAULT_DEBUG_DIRS) -> DebugInfo | None:  # fmt: skip
        """The debug info of `image` (from a separate debug file when it has none itself),
        or None when there is no DWARF line info. The index comes from `cache` when it
        holds one for this build, else it is built (and stored there)."""
        try:
            opened = open_dwarf(image.path, image.build_id, debug_dirs)
        except Unsupported as exc:
            log.info("no usable DWARF in %s: %s", image.path, exc)
            return None
        if opened is None:
            return None
        main, dwarf = opened
        try:
            ident_main = FileIdentity.of(main.path)
            ident_dwarf = FileIdentity.of(dwarf.path) if dwarf is not main else ident_main
        except OSError as exc:
            raise TargetError(f"cannot stat {image.path}: {exc}") from exc
        identity = (_tuple(ident_main), _tuple(ident_dwarf), image.build_id)
        key = IndexCache.key_for(image.build_id, main.path, ident_main.mtime_ns, ident_main.size)
        payload = cache.load(key, identity) if cache is not None else None
        if payload is not None and _valid_payload(payload):
            log.debug("index of %s read from the cache", image.path)
        else:
            started = time.perf_counter()
            payload = build_payload(image, dwarf, progress)
            log.debug("indexed %s in %.3f s", image.path, time.perf_counter() - started)
            if cache is not None:
                cache.store(key, identity, payload)
        if progress is not None:
            progress(f"debug info of {os.path.basename(image.path)} loaded", 1.0)
        image.adopt_symbols(payload["symbols"])
        info = cls(image, main, dwarf, payload)
        if cache is not None:
            info._store = (cache, key + "-extra", identity)
        return info

    # --- queries -----------------------------------------------------------------------
    def has_line_info(self) -> bool:
        return bool(self._headers)

    def source_files(self) -> list[str]:
        """Every source file named by a line table: absolute, normalized, sorted."""
        return sorted({self._paths[i] for i in self._files_of() if self._paths[i]})

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
        found = names_of.get(path)
        if found is not None:
            return found
        return path if self.match_file(path) else None

    def resolve_line(
        self, file: str, line: int, block_of: Callable[[int], int] | None = None
    ) -> LineResolution | None:
        """Where `break FILE:LINE` binds, as gdb: all units, instances and inlined copies in
        other functions; the next line with code when `line` has none; after the prologue
        when the line is a function's first. None when no such file or no code after it.
        `block_of(address)`: the inlined copy holding an address (0: none), so that two
        copies in one function both bind, as gdb's one location per block."""
        path_ids = self.match_file(file)
        if not path_ids:
            return None
        hits: dict[int, list[tuple[int, int, int]]] = {}  # line -> [(address, path id, stmt)]
        best_above: int | None = None
        for address, number, path_id, stmt in self._statement_rows(path_ids):
            if number == line:
                hits.setdefault(line, []).append((address, path_id, stmt))
            elif number > line and (best_above is None or number <= best_above):
                best_above = number
                hits.setdefault(number, []).append((address, path_id, stmt))
        bound = line if line in hits else best_above
        if bound is None:
            return None
        found = hits[bound]
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

    def line_start(self, file: str, line: int) -> int | None:
        """gdb's find_line_pc: the lowest address of a statement row of `line` in `file`,
        else of the nearest line after it with one. None: no code at or after the line."""
        path_ids = self.match_file(file)
        best: tuple[int, int] | None = None  # (line, address)
        for address, number, _path_id, _stmt in self._statement_rows(path_ids):
            if number >= line:
                best = min(best, (number, address)) if best is not None else (number, address)
        return None if best is None else best[1]

    def line_table(self, file: str) -> list[tuple[int, int]] | None:
        """gdb's linetable of the symtab `file` names (lookup_symtab: the first unit's
        naming it): (link-time address, line) by address, line 0 ending a run. None: no
        line table names the file."""
        path_ids = self.match_file(file)
        files_of = self._files_of()
        units = sorted((stmt, path_id) for path_id in path_ids for stmt in files_of.get(path_id, ()))
        if not units:
            return None
        stmt, wanted = units[0]
        header = self._header(stmt)
        if header is None:
            return []
        try:
            data = self._dwarf.read(".debug_line", header.offset, header.end - header.offset)
            rows = decode_rows(data, header, base=header.offset, keep_switched=True)
        except TargetError as exc:
            log.warning("%s: %s", self.debug_file, exc)
            return []
        subfile_of = dict(enumerate(self._headers[stmt][-1]))
        return file_line_table(rows, subfile_of, wanted)

    def _statement_rows(self, path_ids: set[int]) -> Iterator[tuple[int, int, int, int]]:
        """(address, line, path id, line program) of each statement row of the files
        `path_ids` (no end of a sequence), line program by line program."""
        files_of = self._files_of()
        for stmt in sorted({s for p in path_ids for s in files_of.get(p, ())}):
            rows = self._decoded(stmt)
            numbers = self._file_numbers(stmt, path_ids)
            if rows is None or not numbers:
                continue
            for address, fnum, number, flags in zip(rows.address, rows.file, rows.line, rows.flags, strict=True):
                if fnum in numbers and flags & IS_STMT and not flags & END_SEQUENCE:
                    yield address, number, numbers[fnum], stmt

    def functions_named(self, name: str) -> list[FunctionMatch]:
        """Functions `break NAME` stops in: exact and demangled names, `ns::func`,
        `Class::method` (every overload), unqualified `method`, template instances,
        Rust paths; `name(int)` picks an overload. Sorted by address."""
        key, params = names.normalize_query(name)
        if not key:
            return []
        comps = names.split_qualified(key)
        needle = names._strip_templates(comps[-1]) if comps else key
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

    def location_at(self, address: int) -> SourceLine | None:
        """The line-table row covering `address` (gdb's `info line *ADDR`)."""
        found = self._row_at(address)
        if found is None:
            return None
        stmt, rows, i = found
        return SourceLine(
            file=self._path_of(stmt, rows.file[i]),
            line=rows.line[i],
            column=rows.column[i],
            address=rows.address[i],
            is_stmt=bool(rows.flags[i] & IS_STMT),
        )

    def line_range_at(self, address: int) -> tuple[int, int] | None:
        """[start, end) of the run of rows of the same file and line around `address`: the
        range a `next`/`step` stays in until the pc leaves the line."""
        found = self._row_at(address)
        if found is None:
            return None
        _stmt, rows, i = found
        first, last = self._sequence_bounds(rows, i)
        key = (rows.file[i], rows.line[i])
        start = i
        while start > first and (rows.file[start - 1], rows.line[start - 1]) == key:
            start -= 1
        # Rows of other lines at the same address are empty: the range goes past them.
        end = bisect_right(rows.address, address, i, last)
        while end < last and (rows.file[end], rows.line[end]) == key:
            end += 1
        return rows.address[start], rows.address[end]

    def row_range_at(self, address: int) -> tuple[int, int] | None:
        """[start, end) of the one row holding `address` (gdb's find_pc_line range): up to
        the next row at a higher address, whatever its line."""
        found = self._row_at(address)
        if found is None:
            return None
        _stmt, rows, i = found
        _first, last = self._sequence_bounds(rows, i)
        return rows.address[i], rows.address[bisect_right(rows.address, address, i, last)]

    def is_statement_start(self, address: int) -> bool:
        """Whether a row marked is_stmt starts exactly at `address`."""
        found = self._row_at(address)
        if found is None:
            return False
        _stmt, rows, i = found
        first, _last = self._sequence_bounds(rows, i)
        while i >= first and rows.address[i] == address:
            if rows.flags[i] & IS_STMT:
                return True
            i -= 1
        return False

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
        unit = self._unit_at(address)
        offset = None if unit is None else self._units[unit][0]
        return offset if offset is not None and offset >= 0 else None

    def match_file(self, file: str) -> set[int]:
        """Path ids of the line-table files `file` names: absolute (also through symlinks),
        relative (a suffix of whole components, `./` and `../` normalized) or a basename."""
        norm = os.path.normpath(file)
        candidates = self._file_index()[1].get(os.path.basename(norm), [])
        if os.path.isabs(norm):
            exact = {i for i in candidates if self._paths[i] == norm}
            if exact:
                return exact
            real = os.path.realpath(norm)
            return {i for i in candidates if os.path.realpath(self._paths[i]) == real}
        wanted = [c for c in norm.split("/") if c not in ("", ".", "..")]
        size = len(wanted)
        return {i for i in candidates if self._paths[i].split("/")[-size:] == wanted}

    # --- for the DIE-walking layers (inlined copies) ------------------------------------
    @property
    def sections(self) -> ElfSections:
        """The sections of the file holding the DWARF."""
        return self._dwarf

    def unit_offsets(self) -> list[int]:
        return [u[0] for u in self._units if u[0] >= 0]

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

    def file_path(self, cu_offset: int, number: int) -> str | None:
        """The path of file `number` of a unit's line table (DW_AT_call_file, decl_file)."""
        unit = self._unit_index.get(cu_offset)
        stmt = self._units[unit][1] if unit is not None else -1
        if stmt < 0 or stmt not in self._headers:
            return None
        return self._path_of(stmt, number) or None

    def next_row_address(self, address: int) -> int | None:
        """The address of the first line-table row after `address` in its sequence."""
        found = self._row_at(address)
        if found is None:
            return None
        _stmt, rows, i = found
        _first, last = self._sequence_bounds(rows, i)
        end = bisect_right(rows.address, address, i, last)
        return rows.address[end] if end < len(rows.address) else None

    def remembered(self, kind: str, key: str) -> Any:
        """A value `remember`ed for (kind, key), in this session or one before; None."""
        with self._lock:
            return self._load_extras().get(kind, {}).get(key)

    def remember(self, kind: str, key: str, value: Any) -> None:
        """Keep `value` (plain containers only) for (kind, key), on disk as well."""
        with self._lock:
            extras = self._load_extras()
            extras.setdefault(kind, {})[key] = value
            if self._store is not None:
                cache, store_key, identity = self._store
                cache.store(store_key, identity, {"extras": extras})

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

    # --- rows --------------------------------------------------------------------------
    def _decoded(self, stmt: int) -> LineRows | None:
        with self._lock:
            rows = self._rows.get(stmt)
            if rows is not None:
                return rows
            header = self._header(stmt)
            if header is None:
                return None
            try:
                data = self._dwarf.read(".debug_line", header.offset, header.end - header.offset)
                rows = decode_rows(data, header, base=header.offset)
            except TargetError as exc:
                log.warning("%s: %s", self.debug_file, exc)
                rows = LineRows()
            self._rows[stmt] = rows
            return rows

    def _header(self, stmt: int) -> LineHeader | None:
        raw = self._headers.get(stmt)
        if raw is None:
            return None
        return header_from_tuple(stmt, raw, tuple(self._paths[i] for i in raw[-1]))

    def _file_numbers(self, stmt: int, path_ids: set[int]) -> dict[int, int]:
        """DWARF file number -> path id, for the numbers of `stmt` naming `path_ids`."""
        file_ids = self._headers[stmt][-1]
        return {n: p for n, p in enumerate(file_ids) if p in path_ids}

    def _path_of(self, stmt: int, number: int) -> str:
        file_ids = self._headers[stmt][-1]
        return self._paths[file_ids[number]] if 0 <= number < len(file_ids) else ""

    def _unit_at(self, address: int) -> int | None:
        i = bisect_right(self._range_lows, address) - 1
        # Ranges may overlap a little (padding): look back a few for one that contains it.
        for j in range(i, max(-1, i - 8), -1):
            low, high, unit = self._ranges[j]
            if low <= address < high:
                return unit
        return None

    def _row_at(self, address: int) -> tuple[int, LineRows, int] | None:
        unit = self._unit_at(address)
        if unit is None:
            return None
        stmt = self._units[unit][1]
        rows = self._decoded(stmt) if stmt >= 0 else None
        if rows is None:
            return None
        lows = [s[2] for s in rows.sequences]
        k = bisect_right(lows, address) - 1
        while k >= 0:
            first, last, low, high = rows.sequences[k]
            if low <= address < high:
                i = bisect_right(rows.address, address, first, last) - 1
                # Several rows at one address: the last one, or an earlier is_stmt one.
                j = i
                while not rows.flags[j] & IS_STMT and j > first:
                    if rows.address[j - 1] != address or rows.address[j] != address:
                        break
                    j -= 1
                return stmt, rows, (j if rows.flags[j] & IS_STMT else i)
            k -= 1
            if k >= 0 and rows.sequences[k][3] <= address and low > address:
                break
        return None

    @staticmethod
    def _sequence_bounds(rows: LineRows, i: int) -> tuple[int, int]:
        for first, last, _low, _high in rows.sequences:
            if first <= i <= last:
                return first, last
        return i, i + 1

    # --- functions ---------------------------------------------------------------------
    # --- files -------------------------------------------------------------------------
    def _files_of(self) -> dict[int, list[int]]:
        return self._file_index()[0]

    def _file_index(self) -> tuple[dict[int, list[int]], dict[str, list[int]]]:
        maps = self._file_maps
        if maps is None:
            files_of: dict[int, list[int]] = {}
            for stmt, header in self._headers.items():
                for path_id in set(header[-1]):
                    files_of.setdefault(path_id, []).append(stmt)
            by_basename: dict[str, list[int]] = {}
            for path_id, path in enumerate(self._paths):
                if path_id in files_of:
                    by_basename.setdefault(os.path.basename(path), []).append(path_id)
            maps = self._file_maps = (files_of, by_basename)
        return maps

    def _function_match(self, linkage: str, demangled: str, low: int, size: int) -> FunctionMatch:
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
        found = self._row_at(address)
        if found is None:
            return None
        _stmt, rows, i = found
        _first, last = self._sequence_bounds(rows, i)
        end = bisect_right(rows.address, address, i, last)
        return rows.address[i], rows.address[end], rows.line[i]

    def rows_between(self, low: int, high: int) -> list[prologue.LineRow]:
        found = self._row_at(low)
        if found is None:
            return []
        stmt, rows, i = found
        first, last = self._sequence_bounds(rows, i)
        while i > first and rows.address[i - 1] >= low:
            i -= 1
        found_rows = []
        while i < last and rows.address[i] < high:
            if rows.address[i] >= low and not rows.flags[i] & END_SEQUENCE:
                path = self._path_of(stmt, rows.file[i])
                found_rows.append(prologue.LineRow(rows.address[i], path, rows.line[i],
                                                   rows.flags[i]))  # fmt: skip
            i += 1
        return found_rows

    def read_code(self, address: int, size: int) -> bytes:
        return self._main.read_address(address, size)

    def producer_at(self, address: int) -> str:
        unit = self._unit_at(address)
        return self._units[unit][4] if unit is not None else ""

    def has_location_lists_at(self, address: int) -> bool:
        unit = self._unit_at(address)
        offset = self._units[unit][0] if unit is not None else -1
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
        """(the lowest address per function (per inlined copy in it, with `block_of`), each
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


def _tuple(identity: FileIdentity) -> tuple[str, int, int]:
    return (identity.path, identity.mtime_ns, identity.size)


def _valid_payload(payload: dict[str, Any]) -> bool:
    try:
        return (
            isinstance(payload["units"], list)
            and isinstance(payload["paths"], list)
            and isinstance(payload["headers"], dict)
            and isinstance(payload["ranges"], list)
            and isinstance(payload["demangled"], dict)
            and is_packed(payload["functions"])
            and is_packed_table(payload["symbols"])
            and all(len(h) == 11 for h in payload["headers"].values())
        )
    except (KeyError, TypeError):
        return False
