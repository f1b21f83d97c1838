"""The line rows of one binary's units: line programs decoded per unit on the first query
that needs them, then searched by address (the row, line run or statement at a pc) and by
source file (the rows of a file:line). Addresses are link-time.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from typing import Any

from aliceserver.debuggers.symbols.dwarf import prologue
from aliceserver.debuggers.symbols.dwarf.lines import (
    END_SEQUENCE,
    IS_STMT,
    PROLOGUE_END,
    LineHeader,
    LineRows,
    decode_rows,
    header_from_tuple,
)
from aliceserver.debuggers.symbols.dwarf.model import SourceLine
from aliceserver.debuggers.symbols.dwarf.rowcache import MIN_PROGRAM, RowCache
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
from aliceserver.errors import TargetError
from aliceserver.regexes import compiled_later

log = logging.getLogger(__name__)

# A flags byte with PROLOGUE_END set (flags are IS_STMT | PROLOGUE_END | END_SEQUENCE).
_PROLOGUE_END_FLAGS = compiled_later(b"[" + re.escape(bytes(f for f in range(8) if f & PROLOGUE_END)) + b"]")
# A unit: (.debug_info offset, line program offset or -1, name, comp_dir, producer).
Unit = tuple[int, int, str, str, str]
# A file's statement rows by line: the lines in order, and line -> [(address, path id,
# line program)] (no end of a sequence).
FileLines = tuple[list[int], dict[int, list[tuple[int, int, int]]]]


class LineIndex:
    """The rows of the line programs of `units` (thread-safe, lazily decoded)."""

    def __init__(self, dwarf: ElfSections, units: list[Unit], paths: list[str],
                 headers: dict[int, tuple[Any, ...]],
                 ranges: list[tuple[int, int, int]],
                 stored: RowCache | None = None) -> None:  # fmt: skip
        self.debug_file = dwarf.path  # where the DWARF was read from
        self.paths = paths  # path id -> absolute, normalized path
        self._dwarf = dwarf
        self._units = units
        self._headers = headers
        self._range_lows = [r[0] for r in ranges]
        self._ranges = ranges
        self._unit_index = {u[0]: i for i, u in enumerate(units)}
        # path id -> line program offsets, basename -> path ids: built on the first file
        # query (a big library's take longer than loading its whole index)
        self._file_maps: tuple[dict[int, list[int]], dict[str, list[int]]] | None = None
        self._rows: dict[int, LineRows] = {}
        self._by_line: dict[frozenset[int], FileLines] = {}
        self._stored = stored  # rows decoded in an earlier session, on disk
        self._lock = threading.Lock()

    def source_files(self) -> list[str]:
        """Every source file named by a line table: absolute, normalized, sorted."""
        return sorted({self.paths[i] for i in self._files_of() if self.paths[i]})

    def match_file(self, file: str) -> set[int]:
        """Path ids of the line-table files `file` names: absolute (also through symlinks),
        relative (a suffix of whole components, `./` and `../` normalized) or a basename."""
        norm = os.path.normpath(file)
        candidates = self._file_index()[1].get(os.path.basename(norm), [])
        if not candidates:  # most libraries: no realpath's lstat of every component
            return set()
        if os.path.isabs(norm):
            exact = {i for i in candidates if self.paths[i] == norm}
            if exact:
                return exact
            real = os.path.realpath(norm)
            return {i for i in candidates if os.path.realpath(self.paths[i]) == real}
        wanted = [c for c in norm.split("/") if c not in ("", ".", "..")]
        size = len(wanted)
        return {i for i in candidates if self.paths[i].split("/")[-size:] == wanted}

    def line_start(self, file: str, line: int) -> int | None:
        """gdb's find_line_pc: the lowest address of a statement row of `line` in `file`,
        else of the nearest line after it with one. None: no code at or after the line."""
        found = self.rows_at_or_after(self.match_file(file), line)
        return None if found is None else min(found[1])[0]

    def rows_at_or_after(self, path_ids: set[int], line: int) -> tuple[int, list[tuple[int, int, int]]] | None:
        """The statement rows of `line` in the files `path_ids`, else of the nearest line
        after it with some: (that line, [(address, path id, line program)])."""
        lines, rows = self.rows_by_line(path_ids)
        at = bisect_left(lines, line)
        return None if at == len(lines) else (lines[at], rows[lines[at]])

    def rows_by_line(self, path_ids: set[int]) -> FileLines:
        """The statement rows of the files `path_ids` by line, sorted once per file set:
        sqlite3.c has 70k rows, and every `break FILE:LINE` scanned them all."""
        key = frozenset(path_ids)
        found = self._by_line.get(key)
        if found is None:
            rows: dict[int, list[tuple[int, int, int]]] = {}
            for address, number, path_id, stmt in self.statement_rows(path_ids):
                rows.setdefault(number, []).append((address, path_id, stmt))
            found = self._by_line[key] = (sorted(rows), rows)
        return found

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
        from aliceserver.debuggers.symbols.dwarf.symtab_lines import file_line_table

        return file_line_table(rows, subfile_of, wanted)

    def statement_rows(self, path_ids: set[int]) -> Iterator[tuple[int, int, int, int]]:
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

    def next_row_address(self, address: int) -> int | None:
        """The address of the first line-table row after `address` in its sequence."""
        found = self._row_at(address)
        if found is None:
            return None
        _stmt, rows, i = found
        _first, last = self._sequence_bounds(rows, i)
        end = bisect_right(rows.address, address, i, last)
        return rows.address[end] if end < len(rows.address) else None

    def row_span(self, address: int) -> tuple[int, int, int] | None:
        found = self._row_at(address)
        if found is None:
            return None
        _stmt, rows, i = found
        _first, last = self._sequence_bounds(rows, i)
        end = bisect_right(rows.address, address, i, last)
        return rows.address[i], rows.address[end], rows.line[i]

    def rows_between(self, low: int, high: int) -> list[prologue.LineRow]:
        found = self._between(low, high)
        if found is None:
            return []
        stmt, rows, start, end = found
        paths: dict[int, str] = {}
        found_rows = []
        for address, number, line, flags in zip(rows.address[start:end], rows.file[start:end],
                                                 rows.line[start:end], rows.flags[start:end], strict=True):  # fmt: skip
            path = paths.get(number)
            if path is None:
                path = paths[number] = self._path_of(stmt, number)
            found_rows.append(prologue.LineRow(address, path, line, flags))
        return found_rows

    def prologue_end(self, low: int, high: int) -> int | None:
        """The address of the first row of rows_between(low, high) marked prologue_end
        whose file is the first row's; found in the flags' bytes (a -O0 function of
        thousands of rows has none, and each would be a LineRow)."""
        found = self._between(low, high)
        if found is None:
            return None
        stmt, rows, start, end = found
        if start >= end:
            return None
        entry_path = self._path_of(stmt, rows.file[start])
        for match in _PROLOGUE_END_FLAGS().finditer(rows.flags[start:end].tobytes()):
            at = start + match.start()
            if self._path_of(stmt, rows.file[at]) == entry_path:
                return rows.address[at]
        return None

    def _between(self, low: int, high: int) -> tuple[int, LineRows, int, int] | None:
        """(line program, its rows, [start, end) of the rows at addresses in [low, high)
        in the sequence holding `low`)."""
        found = self._row_at(low)
        if found is None:
            return None
        stmt, rows, i = found
        first, last = self._sequence_bounds(rows, i)
        while i > first and rows.address[i - 1] >= low:
            i -= 1
        while i < last and rows.address[i] < low:
            i += 1  # the rows holding `low` start before it
        # A sequence's rows are in address order, its END_SEQUENCE row (`last`) left out.
        return stmt, rows, i, max(i, bisect_left(rows.address, high, i, last))

    def file_path(self, cu_offset: int, number: int) -> str | None:
        """The path of file `number` of a unit's line table (DW_AT_call_file, decl_file)."""
        unit = self._unit_index.get(cu_offset)
        stmt = self._units[unit][1] if unit is not None else -1
        if stmt < 0 or stmt not in self._headers:
            return None
        return self._path_of(stmt, number) or None

    def unit(self, index: int) -> Unit:
        """The unit unit_at(...) named by `index`."""
        return self._units[index]

    def unit_at(self, address: int) -> int | None:
        i = bisect_right(self._range_lows, address) - 1
        # Ranges may overlap a little (padding): look back a few for one that contains it.
        for j in range(i, max(-1, i - 8), -1):
            low, high, unit = self._ranges[j]
            if low <= address < high:
                return unit
        return None

    # --- rows -------------------------------------------------------------------------

    def _decoded(self, stmt: int) -> LineRows | None:
        with self._lock:
            rows = self._rows.get(stmt)
            if rows is not None:
                return rows
            header = self._header(stmt)
            if header is None:
                return None
            stored = self._stored if header.end - header.program >= MIN_PROGRAM else None
            rows = stored.load(stmt) if stored is not None else None
            if rows is None:
                try:
                    data = self._dwarf.read(".debug_line", header.offset, header.end - header.offset)
                    rows = decode_rows(data, header, base=header.offset)
                    if stored is not None:
                        stored.store(stmt, rows)
                except TargetError as exc:
                    log.warning("%s: %s", self.debug_file, exc)
                    rows = LineRows()
            self._rows[stmt] = rows
            return rows

    def _header(self, stmt: int) -> LineHeader | None:
        raw = self._headers.get(stmt)
        if raw is None:
            return None
        return header_from_tuple(stmt, raw, tuple(self.paths[i] for i in raw[-1]))

    def _file_numbers(self, stmt: int, path_ids: set[int]) -> dict[int, int]:
        """DWARF file number -> path id, for the numbers of `stmt` naming `path_ids`."""
        file_ids = self._headers[stmt][-1]
        return {n: p for n, p in enumerate(file_ids) if p in path_ids}

    def _path_of(self, stmt: int, number: int) -> str:
        file_ids = self._headers[stmt][-1]
        return self.paths[file_ids[number]] if 0 <= number < len(file_ids) else ""

    def _row_at(self, address: int) -> tuple[int, LineRows, int] | None:
        unit = self.unit_at(address)
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
                # Several rows at the row's address: the last one, or an earlier is_stmt one
                # (gdb's find_pc_sect_line, whether the pc is at the row's start or inside).
                j = i
                while not rows.flags[j] & IS_STMT and j > first and rows.address[j - 1] == rows.address[i]:
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
            for path_id, path in enumerate(self.paths):
                if path_id in files_of:
                    by_basename.setdefault(os.path.basename(path), []).append(path_id)
            maps = self._file_maps = (files_of, by_basename)
        return maps
