"""Compilation unit summaries, read without parsing the DIE tree.

Only each unit's first DIE (name, comp_dir, stmt_list, pc ranges) is read, plus
`.debug_aranges` and the range lists a unit points at: the data the location index needs.
"""

from __future__ import annotations

import logging
import os
import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from elftools.dwarf.enums import ENUM_DW_AT, ENUM_DW_TAG

from aliceserver.debuggers.symbols.dwarf import forms
from aliceserver.debuggers.symbols.dwarf.abbrevs import Spec, read_entry, skip_specs
from aliceserver.debuggers.symbols.dwarf.lines import (
    StringSections,
    decode_rows,
    header_from_tuple,
    parse_header,
)
from aliceserver.debuggers.symbols.dwarf.namepart import Progress, build_name_part
from aliceserver.debuggers.symbols.dwarf.rangelists import v4_ranges, v5_ranges
from aliceserver.debuggers.symbols.dwarf.rawread import (
    cstring,
    sleb,
    string_at,
    uleb,
    unit_header,
    unit_length,
)
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.errors import TargetError

log = logging.getLogger(__name__)


_AT_NAME, _AT_STMT_LIST, _AT_LOW_PC, _AT_HIGH_PC, _AT_COMP_DIR, _AT_PRODUCER, _AT_RANGES, \
    _AT_STR_OFFSETS_BASE, _AT_ADDR_BASE, _AT_RNGLISTS_BASE = (
        ENUM_DW_AT["DW_AT_" + name]
        for name in ("name", "stmt_list", "low_pc", "high_pc", "comp_dir", "producer", "ranges",
                     "str_offsets_base", "addr_base", "rnglists_base"))  # fmt: skip
_WANTED = frozenset({_AT_NAME, _AT_STMT_LIST, _AT_LOW_PC, _AT_HIGH_PC, _AT_COMP_DIR,
                     _AT_PRODUCER, _AT_RANGES, _AT_STR_OFFSETS_BASE, _AT_ADDR_BASE,
                     _AT_RNGLISTS_BASE})  # fmt: skip
_TOMBSTONE = (1 << 64) - 16
_TAG_PARTIAL_UNIT = ENUM_DW_TAG["DW_TAG_partial_unit"]


@dataclass(frozen=True, slots=True)
class UnitSummary:
    offset: int  # of the unit header in .debug_info
    version: int
    name: str
    comp_dir: str
    producer: str
    stmt_list: int | None  # offset of its line program in .debug_line
    ranges: tuple[tuple[int, int], ...]  # [low, high) from its DIE, possibly empty


@dataclass(frozen=True, slots=True)
class RangeSections:
    addr: bytes = b""
    ranges: bytes = b""  # .debug_ranges (DWARF 2-4)
    rnglists: bytes = b""  # .debug_rnglists (DWARF 5)


_HEAD = 2048  # bytes read at a unit's start: its header and first DIE, but for odd ones


def read_units(
    info: bytes,
    abbrev: bytes,
    strings: StringSections,
    range_sections: Callable[[], RangeSections],
    covered: set[int] = frozenset(),  # type: ignore[assignment]
) -> list[UnitSummary]:
    """A summary of every compilation unit of `.debug_info` (type units skipped).

    `range_sections` is called once, if a unit not in `covered` (units .debug_aranges
    already maps) has DW_AT_ranges."""
    return read_unit_heads(lambda offset, size: info[offset : offset + size], len(info),
                           abbrev, strings, range_sections, covered)  # fmt: skip


def read_unit_heads(
    read: Callable[[int, int], bytes],
    size: int,
    abbrev: bytes,
    strings: StringSections,
    range_sections: Callable[[], RangeSections],
    covered: set[int] = frozenset(),  # type: ignore[assignment]
) -> list[UnitSummary]:
    """read_units over a .debug_info of `size` bytes read by `read(offset, count)`: only
    each unit's first bytes are read (a 240 MB section is not held for 2 KB a unit)."""
    units = []
    loaded: list[RangeSections] = []
    abbrevs = _UnitAbbrevs(abbrev)

    def ranges() -> RangeSections:
        if not loaded:
            loaded.append(range_sections())
        return loaded[0]

    pos = 0
    while pos + 11 <= size:
        head = read(pos, min(_HEAD, size - pos))
        try:
            length, osize, body = unit_length(head, 0)
        except (TargetError, struct.error):
            break
        end = pos + body + length
        if end > size or length < 7:
            break
        try:
            try:
                unit = _read_unit(head, pos, body, osize, abbrevs, strings,
                                  None if pos in covered else ranges)  # fmt: skip
            except (IndexError, ValueError, struct.error):
                if len(head) >= end - pos:
                    raise
                unit = _read_unit(read(pos, end - pos), pos, body, osize, abbrevs, strings,
                                  None if pos in covered else ranges)  # fmt: skip
        except (IndexError, ValueError, KeyError, struct.error, UnicodeError) as exc:
            raise TargetError(f"malformed compilation unit at {pos:#x}: {exc}") from exc
        if unit is not None:
            units.append(unit)
        pos = end
    return units


class _UnitAbbrevs:
    """The abbreviation entries of units' first DIEs, each table read up to the entry
    wanted only (indexing every entry of 2,000 tables cost more than the DIEs)."""

    def __init__(self, abbrev: bytes) -> None:
        self.abbrev = abbrev
        # code -> the bytes of the last table read up to that entry, and the entry: units
        # of one program often have tables alike up to it, found so by one comparison
        self._last: dict[int, tuple[bytes, int, list[Spec]]] = {}

    def first_entry(self, offset: int, code: int) -> tuple[int, list[Spec]]:
        """(tag, attribute specs) of entry `code` of the table at `offset`."""
        data = self.abbrev
        last = self._last.get(code)
        if last is not None and data.startswith(last[0], offset):
            return last[1], last[2]
        pos = offset
        while True:
            at, pos = uleb(data, pos)
            if at == code:
                tag, _children, specs, end = read_entry(data, pos)
                self._last[code] = (data[offset:end], tag, specs)
                return tag, specs
            if at == 0:
                raise KeyError(f"abbreviation {code} not found")
            while data[pos] >= 0x80:  # the tag
                pos += 1
            pos = skip_specs(data, pos + 2)  # past the tag's last byte, has_children


def _read_unit(
    info: bytes, start: int, pos: int, osize: int, abbrevs: _UnitAbbrevs, strings: StringSections,
    get_ranges: Callable[[], RangeSections] | None,
) -> UnitSummary | None:  # fmt: skip
    """The unit at `start` of .debug_info, `info` holding its bytes from `start` on (all
    of the section, or only its first ones: IndexError if its first DIE runs past them)."""
    header = unit_header(info, pos, osize)
    if header is None:
        return None
    version, address_size, abbrev_offset, pos = header
    code, pos = uleb(info, pos)
    if code == 0:
        return None
    tag, specs = abbrevs.first_entry(abbrev_offset, code)
    if tag == _TAG_PARTIAL_UNIT:  # dwz's DIEs shared by units that import them: no code
        return None
    values: dict[int, tuple[int, int | str | None]] = {}
    for attr, form, implicit in specs:
        while form == forms.INDIRECT_FORM:
            form, pos = uleb(info, pos)
        if attr in _WANTED:
            value, pos = _value(info, pos, form, osize, address_size, version, implicit)
            values[attr] = (form, value)
        else:
            pos = _skip(info, pos, form, osize, address_size, version)
    if pos > len(info):  # a value was cut short (read as fewer bytes): read more
        raise IndexError("the unit's first DIE runs past the bytes read")
    str_base = _int(values.get(_AT_STR_OFFSETS_BASE), forms.default_base(osize))
    addr_base = _int(values.get(_AT_ADDR_BASE), forms.default_base(osize))
    strings = StringSections(strings.line_str, strings.str, strings.str_offsets, str_base,
                             strings.read)  # fmt: skip

    def text(attr: int) -> str:
        found = values.get(attr)
        if found is None:
            return ""
        form, value = found
        if isinstance(value, str):
            return value
        if form == forms.STRP:
            return string_at(strings.str, int(value or 0))
        if form == forms.LINE_STRP:
            return string_at(strings.line_str, int(value or 0))
        if form in forms.STRX_FORMS:
            offset = forms.strx_offset(strings.str_offsets, str_base, int(value or 0), osize)
            return "" if offset is None else string_at(strings.str, offset)
        return ""

    def address(attr: int) -> int | None:
        found = values.get(attr)
        if found is None:
            return None
        form, value = found
        if form in forms.ADDRX_FORMS:
            if get_ranges is None:
                return None
            return forms.addrx(get_ranges().addr, addr_base, int(value or 0), address_size)
        return int(value) if isinstance(value, int) else None

    stmt = values.get(_AT_STMT_LIST)
    pc_ranges: list[tuple[int, int]] = []
    low = address(_AT_LOW_PC)
    high_found = values.get(_AT_HIGH_PC)
    if low is not None and high_found is not None:
        form, value = high_found
        if form == forms.ADDR or form in forms.ADDRX_FORMS:
            high = address(_AT_HIGH_PC)
        else:  # DWARF 4+: high_pc is an offset from low_pc
            high = low + value if isinstance(value, int) else None
        if high is not None and high > low:
            pc_ranges.append((low, high))
    found_ranges = values.get(_AT_RANGES)
    if found_ranges is not None and get_ranges is not None:
        ranges = get_ranges()
        form, value = found_ranges
        if isinstance(value, int):
            base = low or 0
            if version >= 5:
                offset: int | None = value
                if form == forms.RNGLISTX:
                    rng_base = _int(values.get(_AT_RNGLISTS_BASE), forms.default_base(osize, True))
                    offset = forms.listx_offset(ranges.rnglists, rng_base, value, osize)
                if offset is not None:
                    pc_ranges.extend(_rnglist(ranges, offset, base, addr_base, address_size))
            else:
                pc_ranges.extend(v4_ranges(ranges.ranges, value, base))
    return UnitSummary(
        offset=start,
        version=version,
        name=text(_AT_NAME),
        comp_dir=text(_AT_COMP_DIR),
        producer=text(_AT_PRODUCER),
        stmt_list=_int(stmt, None) if stmt is not None else None,
        ranges=tuple(r for r in pc_ranges if 0 < r[0] < r[1] and r[0] < _TOMBSTONE),
    )


def _int(found: tuple[int, int | str | None] | None, default: int | None) -> int:
    if found is not None and isinstance(found[1], int):
        return found[1]
    return default or 0


def _value(
    info: bytes, pos: int, form: int, osize: int, asize: int, version: int, implicit: int
) -> tuple[int | str | None, int]:
    if form == forms.STRING:
        return cstring(info, pos)
    if form == forms.IMPLICIT_CONST:
        return implicit, pos
    size = forms.size_code(form, osize, asize, version)
    if size >= 0:
        return int.from_bytes(info[pos : pos + size], "little"), pos + size
    if size == forms.LEB:
        return sleb(info, pos) if form == forms.SDATA else uleb(info, pos)
    return None, forms.skip(info, pos, size)


def _skip(info: bytes, pos: int, form: int, osize: int, asize: int, version: int) -> int:
    return forms.skip(info, pos, forms.size_code(form, osize, asize, version))


def _rnglist(
    sections: RangeSections, offset: int, base: int, addr_base: int, asize: int
) -> list[tuple[int, int]]:
    return v5_ranges(sections.rnglists, offset, base,
                     lambda index: forms.addrx(sections.addr, addr_base, index, asize) or 0)  # fmt: skip


def read_aranges(data: bytes) -> list[tuple[int, int, int]]:
    """[(low, high, .debug_info offset of the unit)] from `.debug_aranges`."""
    result: list[tuple[int, int, int]] = []
    pos = 0
    while pos + 12 <= len(data):
        try:
            length, osize, body = unit_length(data, pos)
        except TargetError:
            break
        end = body + length
        if end > len(data) or length < 2 + osize + 2:
            break
        cu = int.from_bytes(data[body + 2 : body + 2 + osize], "little")
        asize = data[body + 2 + osize]
        seg = data[body + 3 + osize]
        if asize != 8 or seg != 0:
            pos = end
            continue
        tuple_at = body + 4 + osize
        tuple_at = pos + (-(-(tuple_at - pos) // 16)) * 16  # aligned to twice the address size
        for low, size in struct.iter_unpack("<QQ", data[tuple_at : end - (end - tuple_at) % 16]):
            if low == 0 and size == 0:
                break
            if size and 0 < low < _TOMBSTONE:
                result.append((low, low + size, cu))
        pos = end
    return result


# --- the index payload -----------------------------------------------------------------


def build_payload(
    image: ElfImage, dwarf: ElfSections, progress: Progress | None = None
) -> dict[str, Any]:
    """The cacheable index of `image` (whose DWARF `dwarf` holds), plain containers only:
    its line part (build_line_part) and its name part (build_name_part)."""
    return {**build_line_part(image, dwarf, progress), **build_name_part(image, progress, 0.8)}


def build_line_part(
    image: ElfImage, dwarf: ElfSections, progress: Progress | None = None
) -> dict[str, Any]:
    """The part of the index for lines and addresses: units, the path table, line headers
    (file tables as path ids), address ranges -> unit. Built when a query first needs lines
    of `image` (libc's took two thirds of its whole index: most first stops never ask)."""
    name = os.path.basename(image.path)

    def report(message: str, fraction: float | None) -> None:
        if progress is not None:
            progress(message, fraction)

    report(f"reading debug info of {name}", 0.0)
    strings = StringSections(
        line_str=dwarf.get(".debug_line_str"),
        str=dwarf.get(".debug_str"),
        str_offsets=dwarf.get(".debug_str_offsets"),
    )
    aranges = read_aranges(dwarf.get(".debug_aranges"))
    covered = {cu for _low, _high, cu in aranges}
    with dwarf.reader(".debug_info") as read_info:
        summaries = read_unit_heads(
            read_info,
            dwarf.size(".debug_info"),
            dwarf.get(".debug_abbrev"),
            strings,
            lambda: RangeSections(
                dwarf.get(".debug_addr"), dwarf.get(".debug_ranges"), dwarf.get(".debug_rnglists")
            ),
            covered,
        )
    report(f"reading line tables of {name}", 0.3)
    line_data = dwarf.get(".debug_line")
    if not summaries:  # line tables without units: walk .debug_line itself
        summaries = [UnitSummary(-1, 0, "", "", "", offset, ()) for offset in _programs(line_data)]
    paths: dict[str, int] = {}
    headers: dict[int, tuple[Any, ...]] = {}
    units: list[tuple[int, int, str, str, str]] = []
    for unit in summaries:
        stmt = unit.stmt_list if unit.stmt_list is not None else -1
        units.append((unit.offset, stmt, unit.name, unit.comp_dir, unit.producer))
        if stmt < 0 or stmt in headers:
            continue
        try:
            header = parse_header(line_data, stmt, unit.comp_dir, unit.name, strings)
        except TargetError as exc:
            log.warning("%s: %s", dwarf.path, exc)
            units[-1] = (unit.offset, -1, unit.name, unit.comp_dir, unit.producer)
            continue
        file_ids = tuple(paths.setdefault(p, len(paths)) for p in header.files)
        headers[stmt] = (header.end, header.program, header.version, header.address_size,
                         header.min_inst, header.default_is_stmt, header.line_base,
                         header.line_range, header.opcode_base, header.opcode_lengths,
                         file_ids)  # fmt: skip
    report(f"indexing addresses of {name}", 0.6)
    unit_of = {u[0]: i for i, u in enumerate(units)}
    ranges = [(low, high, unit_of[cu]) for low, high, cu in aranges if cu in unit_of]
    for i, unit in enumerate(summaries):
        if unit.offset in covered and unit.offset >= 0:
            continue
        unit_ranges: Iterable[tuple[int, int]] = unit.ranges
        if not unit_ranges and units[i][1] >= 0:  # no ranges in the DIE: the line program's
            unit_ranges = _sequence_ranges(line_data, units[i][1], headers, paths)
        ranges.extend((low, high, i) for low, high in unit_ranges)
    ranges.sort()
    del line_data
    path_list = [""] * len(paths)
    for path, index in paths.items():
        path_list[index] = path
    return {"units": units, "paths": path_list, "headers": headers, "ranges": ranges}


def _programs(data: bytes) -> list[int]:
    offsets = []
    pos = 0
    while pos + 4 <= len(data):
        try:
            length, _osize, body = unit_length(data, pos)
        except (TargetError, struct.error):
            break
        offsets.append(pos)
        pos = body + length
    return offsets


def _sequence_ranges(
    data: bytes, stmt: int, headers: dict[int, tuple[Any, ...]], paths: dict[str, int]
) -> list[tuple[int, int]]:
    raw = headers.get(stmt)
    if raw is None:
        return []
    header = header_from_tuple(stmt, raw, ())
    try:
        rows = decode_rows(data, header)
    except TargetError:
        return []
    return [(low, high) for _first, _last, low, high in rows.sequences]
