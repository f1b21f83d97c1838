"""Line rows by address before a binary's line part is built: only the units asked about.

`break NAME` needs the rows of the one unit holding NAME's code (its prologue, its line),
and the first stop those of the unit holding the pc; building the whole line part (every
unit's first DIE and line header) for that took 37 ms of a first stop in CPython (147
units) and 91 ms in bench/huge_program's 2,200. The unit at an address is found in
`.debug_aranges` and only its first DIE and its line header are read, as build_line_part
reads them, so each answer is the one the whole line part gives. The few units
.debug_aranges leaves out (CPython's 4 units of data only) are read at once, their ranges
taken as build_line_part takes them; with many such units the whole part is built. A query
by file (or one needing every unit) still builds it.
"""

from __future__ import annotations

import struct
import threading
from bisect import bisect_right
from typing import Any

from aliceserver.debuggers.symbols.dwarf.linerows import LineIndex
from aliceserver.debuggers.symbols.dwarf.lines import LineHeader, StringSections, parse_header
from aliceserver.debuggers.symbols.dwarf.rawread import unit_length
from aliceserver.debuggers.symbols.dwarf.rowcache import RowCache
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
from aliceserver.debuggers.symbols.dwarf.units import (
    _HEAD,
    RangeSections,
    _read_unit,
    _UnitAbbrevs,
    read_aranges,
)
from aliceserver.errors import TargetError

_LOOK_BACK = 8  # ranges looked at below an address, as LineIndex.unit_at
_UNCOVERED = 64  # units .debug_aranges may leave out (each read at once)
# Below this many units the whole line part costs a few headers and is kept with the
# index for later sessions; read by address, a program of one big unit (sqlite's
# amalgamation) read its unit's header and rows again in every session (first stop's
# stackTrace 25 -> 40 ms).
_FEW_UNITS = 16


def unit_starts(dwarf: ElfSections, covered: frozenset[int] | None = None) -> list[int] | None:
    """The offset of each unit of .debug_info, as read_unit_heads walks them (up to the
    first malformed length); None once more than _UNCOVERED are not in `covered` (libc6-dbg
    has 2,000 units, many of them not in its aranges: no need to walk them all)."""
    size = dwarf.size(".debug_info")
    starts = []
    left = _UNCOVERED
    with dwarf.reader(".debug_info") as read:
        pos = 0
        while pos + 11 <= size:
            try:
                length, _osize, body = unit_length(read(pos, 12), 0)
            except (TargetError, struct.error):
                break
            end = pos + body + length
            if end > size or length < 7:
                break
            starts.append(pos)
            if covered is not None and pos not in covered:
                left -= 1
                if left < 0:
                    return None
            pos = end
    return starts


def address_line_index(dwarf: ElfSections, stored: RowCache | None) -> AddressLineIndex | None:
    """The index reading units as addresses ask, or None when .debug_aranges maps too few
    of the units of .debug_info (the whole line part is then needed to know them) or there
    are few units (the whole part is then cheap, and kept for later sessions)."""
    aranges = read_aranges(dwarf.get(".debug_aranges"))
    if not aranges:
        return None
    covered = frozenset(cu for _low, _high, cu in aranges)
    starts = unit_starts(dwarf, covered)
    if starts is None or len(starts) < _FEW_UNITS or not covered <= set(starts):
        return None
    lines = AddressLineIndex(dwarf, aranges, starts, stored)
    lines.cover([offset for offset in starts if offset not in covered])
    return lines


class AddressLineIndex(LineIndex):
    """A LineIndex over the units loaded so far, each loaded when an address in it is
    asked about (its address queries only: file queries need the whole line part)."""

    def __init__(self, dwarf: ElfSections, aranges: list[tuple[int, int, int]], starts: list[int],
                 stored: RowCache | None) -> None:  # fmt: skip
        super().__init__(dwarf, [], [], {}, [], stored)
        self.starts = starts
        self._aranges = sorted(aranges)  # (low, high, unit offset)
        self._arange_lows = [r[0] for r in self._aranges]
        self._starts = frozenset(starts)
        self._loaded: dict[int, int | None] = {}  # unit offset -> unit index (None: no unit)
        self._die_ranges: dict[int, tuple[tuple[int, int], ...]] = {}  # unit index -> its DIE's
        self._path_ids: dict[str, int] = {}
        self._sections: tuple[_UnitAbbrevs, StringSections] | None = None
        self._load_lock = threading.Lock()

    def cover(self, offsets: list[int]) -> None:
        """Read the units at `offsets` (which .debug_aranges leaves out) and take their
        ranges as build_line_part does: their DIE's, else their line program's."""
        added = []
        for offset in offsets:
            unit = self._unit(offset, uncovered=True)
            if unit is None:
                continue
            ranges: tuple[tuple[int, int], ...] | list[tuple[int, int]] = self._die_ranges[unit]
            stmt = self._units[unit][1]
            if not ranges and stmt >= 0:
                rows = self._decoded(stmt)
                ranges = [(low, high) for _f, _l, low, high in rows.sequences] if rows else []
            added += [(low, high, offset) for low, high in ranges]
        if added:
            self._aranges = sorted(self._aranges + added)
            self._arange_lows = [r[0] for r in self._aranges]

    def unit_offsets(self) -> list[int]:
        """The units build_line_part keeps (a dwz partial unit is read and left out)."""
        return [offset for offset in self.starts if self._loaded.get(offset, 0) is not None]

    def decoded_rows(self) -> dict[int, Any]:
        """The rows decoded so far, by line program (the whole index takes them over)."""
        return dict(self._rows)

    def unit_at(self, address: int) -> int | None:
        i = bisect_right(self._arange_lows, address) - 1
        for j in range(i, max(-1, i - _LOOK_BACK), -1):
            low, high, offset = self._aranges[j]
            if low <= address < high:
                unit = self._unit(offset)
                if unit is not None:  # (a unit read_unit_heads drops has no ranges there)
                    return unit
        return None

    def file_path(self, cu_offset: int, number: int) -> str | None:
        if cu_offset in self._starts:
            self._unit(cu_offset)
        return super().file_path(cu_offset, number)

    def _unit(self, offset: int, uncovered: bool = False) -> int | None:
        with self._load_lock:
            if offset not in self._loaded:
                self._loaded[offset] = self._load(offset, uncovered)
            return self._loaded[offset]

    def _load(self, offset: int, uncovered: bool) -> int | None:
        """Read the unit at `offset` and its line header as build_line_part does (the
        range lists too for a unit .debug_aranges leaves out)."""
        abbrevs, strings = self._unit_sections()
        dwarf = self._dwarf
        ranges = (lambda: RangeSections(dwarf.get(".debug_addr"), dwarf.get(".debug_ranges"),
                                        dwarf.get(".debug_rnglists"))) if uncovered else None  # fmt: skip
        size = self._dwarf.size(".debug_info")
        head = self._dwarf.read(".debug_info", offset, min(_HEAD, size - offset))
        length, osize, body = unit_length(head, 0)
        try:
            try:
                summary = _read_unit(head, offset, body, osize, abbrevs, strings, ranges)
            except (IndexError, ValueError):
                if len(head) >= body + length:
                    raise
                head = self._dwarf.read(".debug_info", offset, body + length)
                summary = _read_unit(head, offset, body, osize, abbrevs, strings, ranges)
        except (IndexError, ValueError, KeyError, UnicodeError) as exc:
            raise TargetError(f"malformed compilation unit at {offset:#x}: {exc}") from exc
        if summary is None:
            return None
        stmt = summary.stmt_list if summary.stmt_list is not None else -1
        if stmt >= 0 and stmt not in self._headers:
            try:
                header = self._header_at(stmt, summary.comp_dir, summary.name, strings)
                self._headers[stmt] = self._header_tuple(header)
            except TargetError:  # as build_line_part: a unit without line rows
                stmt = -1
        self._units.append((offset, stmt, summary.name, summary.comp_dir, summary.producer))
        self._unit_index[offset] = len(self._units) - 1
        self._die_ranges[len(self._units) - 1] = summary.ranges
        return len(self._units) - 1

    def _header_at(self, stmt: int, comp_dir: str, name: str, strings: StringSections) -> LineHeader:
        """The line header at `stmt`, reading only its line program."""
        length, _osize, start = unit_length(self._dwarf.read(".debug_line", stmt, 12), 0)
        data = self._dwarf.read(".debug_line", stmt, start + length)
        header = parse_header(data, 0, comp_dir, name, strings)
        return LineHeader(stmt, header.end + stmt, header.program + stmt, *_fields(header))

    def _header_tuple(self, header: LineHeader) -> tuple[Any, ...]:
        """build_line_part's form of `header` (file paths as ids of this index's paths)."""
        file_ids = []
        for path in header.files:
            if path not in self._path_ids:
                self._path_ids[path] = len(self.paths)
                self.paths.append(path)
            file_ids.append(self._path_ids[path])
        return (header.end, header.program, header.version, header.address_size,
                header.min_inst, header.default_is_stmt, header.line_base, header.line_range,
                header.opcode_base, header.opcode_lengths, tuple(file_ids))  # fmt: skip

    def _unit_sections(self) -> tuple[_UnitAbbrevs, StringSections]:
        if self._sections is None:
            dwarf = self._dwarf
            strings = StringSections(line_str=dwarf.get(".debug_line_str"),
                                     str=dwarf.get(".debug_str"),
                                     str_offsets=dwarf.get(".debug_str_offsets"))  # fmt: skip
            self._sections = (_UnitAbbrevs(dwarf.get(".debug_abbrev")), strings)
        return self._sections


def _fields(header: LineHeader) -> tuple[Any, ...]:
    """The fields of `header` after its offset, end and program."""
    return (header.version, header.address_size, header.min_inst, header.default_is_stmt,
            header.line_base, header.line_range, header.opcode_base, header.opcode_lengths,
            header.files)  # fmt: skip
