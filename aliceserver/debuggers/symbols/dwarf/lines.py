"""DWARF 2-5 line programs: header parsing (file tables) and a fast row decoder.

Works on raw bytes; pyelftools' LineProgram objects build an object per row, which is what
makes them slow. Malformed input raises TargetError; every loop consumes input, so no
input makes the decoder spin.
"""

from __future__ import annotations

import builtins  # `str` below is also a field's name
import functools
import os
import struct
from array import array
from dataclasses import dataclass, field
from typing import Any

from elftools.dwarf.enums import ENUM_DW_LNCT

from aliceserver.debuggers.symbols.dwarf import forms
from aliceserver.debuggers.symbols.dwarf.rawread import cstring, sleb, string_at, uleb, unit_length
from aliceserver.errors import TargetError

# Row flags.
IS_STMT = 1
PROLOGUE_END = 2
END_SEQUENCE = 4

_MASK64 = (1 << 64) - 1
_TOMBSTONE = _MASK64 - 15  # lld marks code it discarded with -1 or -2

# The fixed-size forms a v5 entry format may use, and their sizes.
_FIXED_SIZES = {form: forms.FIXED_FORMS[form]
                for form in (forms.DATA1, forms.DATA2, forms.DATA4, forms.DATA8, forms.DATA16,
                             *forms.STRX_FIXED)}  # fmt: skip
_BLOCK_WIDTHS = {forms.BLOCK1_FORM: 1, forms.BLOCK2_FORM: 2, forms.BLOCK4_FORM: 4}
_LNCT_PATH = ENUM_DW_LNCT["DW_LNCT_path"]
_LNCT_DIRECTORY_INDEX = ENUM_DW_LNCT["DW_LNCT_directory_index"]
_STRING_OFFSETS = frozenset({forms.LINE_STRP, forms.STRP})


@dataclass(frozen=True, slots=True)
class LineHeader:
    """What decoding a line program needs, and its file table."""

    offset: int  # of the unit in .debug_line
    end: int  # offset just past the unit
    program: int  # offset of the first opcode
    version: int
    address_size: int
    min_inst: int
    default_is_stmt: bool
    line_base: int
    line_range: int
    opcode_base: int
    opcode_lengths: tuple[int, ...]  # argument counts of standard opcodes 1..opcode_base-1
    files: tuple[str, ...]  # by DWARF file number: absolute, normalized ("" for unusable)


def header_from_tuple(offset: int, raw: tuple[Any, ...], files: tuple[str, ...]) -> LineHeader:
    """A LineHeader from the index's tuple form (fields after `offset`, file ids last)."""
    end, program, version, asize, min_inst, is_stmt, line_base, line_range, base, lengths = raw[:10]
    return LineHeader(offset, end, program, version, asize, min_inst, is_stmt, line_base,
                      line_range, base, lengths, files)  # fmt: skip


@dataclass(frozen=True, slots=True)
class StringSections:
    """The string sections a v5 line header may point into."""

    line_str: bytes = b""
    str: bytes = b""
    str_offsets: bytes = b""
    str_offsets_base: int = 0
    # The strings read so far, by (form, offset): every unit's table names the same
    # directories and headers again (libc's 2,000 tables: 52,000 names, few distinct).
    read: dict[tuple[int, int], builtins.str] = field(default_factory=dict, compare=False,
                                                      repr=False)  # fmt: skip


def parse_header(
    data: bytes, offset: int, comp_dir: str, cu_name: str, strings: StringSections
) -> LineHeader:
    """Parse the line program header at `offset` of `data` (.debug_line bytes, or a slice of
    them starting at 0 with `offset` relative to it). TargetError on malformed input."""
    try:
        return _parse_header(data, offset, comp_dir, cu_name, strings)
    except (IndexError, ValueError, OverflowError, struct.error, UnicodeError) as exc:
        raise TargetError(f"malformed line program header at {offset:#x}: {exc}") from exc


def _parse_header(
    data: bytes, offset: int, comp_dir: str, cu_name: str, strings: StringSections
) -> LineHeader:
    length, osize, pos = unit_length(data, offset)
    end = pos + length
    if end > len(data):
        raise TargetError(f"line program at {offset:#x} runs past its section")
    (version,) = struct.unpack_from("<H", data, pos)
    pos += 2
    if not 2 <= version <= 5:
        raise TargetError(f"unsupported line table version {version}")
    address_size = 8
    if version >= 5:
        address_size, _seg_size = data[pos], data[pos + 1]
        pos += 2
    header_length = int.from_bytes(data[pos : pos + osize], "little")
    pos += osize
    program = pos + header_length
    if program > end:
        raise TargetError(f"line program header at {offset:#x} is longer than its unit")
    min_inst = data[pos]
    pos += 1
    if version >= 4:
        pos += 1  # maximum_operations_per_instruction: VLIW only
    default_is_stmt = bool(data[pos])
    line_base = struct.unpack_from("<b", data, pos + 1)[0]
    line_range = data[pos + 2]
    opcode_base = data[pos + 3]
    pos += 4
    if line_range == 0 or opcode_base == 0:
        raise TargetError(f"line program at {offset:#x} has line_range or opcode_base 0")
    lengths = tuple(data[pos : pos + opcode_base - 1])
    if len(lengths) != opcode_base - 1:
        raise IndexError("truncated standard_opcode_lengths")
    pos += opcode_base - 1
    comp = os.path.normpath(comp_dir) if comp_dir else ""
    if version >= 5:
        dirs, pos = _v5_entries(data, pos, osize, strings)
        files_raw, pos = _v5_entries(data, pos, osize, strings)
        dir_names = [d[0] for d in dirs]
        base = dir_names[0] if dir_names and dir_names[0] else comp
        dir_names = [_join(base, d) if i else base for i, d in enumerate(dir_names)]
        files = tuple(_file_path(dir_names, name, index, base) for name, index in files_raw)
    else:
        dir_names = [comp]
        while data[pos]:
            name, pos = cstring(data, pos)
            dir_names.append(_join(comp, name))
        pos += 1
        file_list = [""]  # file numbers start at 1 before DWARF 5
        while data[pos]:
            name, pos = cstring(data, pos)
            index, pos = uleb(data, pos)
            _mtime, pos = uleb(data, pos)
            _size, pos = uleb(data, pos)
            file_list.append(_file_path(dir_names, name, index, comp))
        files = tuple(file_list)
        if len(files) == 1 and cu_name:
            files = ("", _join(comp, cu_name))
    return LineHeader(offset, end, program, version, address_size, min_inst, default_is_stmt,
                      line_base, line_range, opcode_base, lengths, files)  # fmt: skip


@functools.lru_cache(maxsize=16384)  # every unit's table names the same headers again
def _join(base: str, name: str) -> str:
    return os.path.normpath(os.path.join(base, name)) if name else ""


def _file_path(dirs: list[str], name: str, index: int, base: str) -> str:
    if not name:
        return ""
    directory = dirs[index] if 0 <= index < len(dirs) else base
    return _join(directory, name)


def _v5_entries(
    data: bytes, pos: int, osize: int, strings: StringSections
) -> tuple[list[tuple[str, int]], int]:
    """A v5 directory or file name table: [(path, directory index)]."""
    count = data[pos]
    pos += 1
    formats = []
    for _ in range(count):
        content, pos = uleb(data, pos)
        form, pos = uleb(data, pos)
        formats.append((content, form))
    entries, pos = uleb(data, pos)
    if entries > len(data) - pos:
        raise TargetError("line header entry count is larger than the header")
    if formats and len(formats) <= 2 and formats[0][0] == _LNCT_PATH and formats[0][1] in _STRING_OFFSETS and (
        len(formats) == 1 or formats[1] == (_LNCT_DIRECTORY_INDEX, forms.UDATA)
    ):
        return _gcc_entries(data, pos, osize, strings, formats[0][1], entries, len(formats) == 2)
    result = []
    for _ in range(entries):
        path, index = "", 0
        for content, form in formats:
            value, pos = _form_value(data, pos, form, osize, strings)
            if content == _LNCT_PATH and isinstance(value, str):
                path = value
            elif content == _LNCT_DIRECTORY_INDEX and isinstance(value, int):
                index = value
        result.append((path, index))
    return result, pos


def _gcc_entries(data: bytes, pos: int, osize: int, strings: StringSections, form: int, entries: int,
                 indexed: bool) -> tuple[list[tuple[str, int]], int]:  # fmt: skip
    """_v5_entries of gcc's tables (a path by string offset, then a directory index or
    nothing), each entry read without _form_value's dispatch: libc's 2,000 headers (30,000
    entries, a third of its index build) are read 15% faster."""
    read = strings.read
    result = []
    for _ in range(entries):
        offset = int.from_bytes(data[pos : pos + osize], "little")
        pos += osize
        path = read.get((form, offset))
        if path is None:
            section = strings.line_str if form == forms.LINE_STRP else strings.str
            path = read[form, offset] = string_at(section, offset)
        index = 0
        if indexed:
            index = data[pos]
            if index < 0x80:
                pos += 1
            else:
                index, pos = uleb(data, pos)
        result.append((path, index))
    return result, pos


def _form_value(
    data: bytes, pos: int, form: int, osize: int, strings: StringSections
) -> tuple[str | int | None, int]:
    if form == forms.STRING:
        return cstring(data, pos)
    if form in (forms.LINE_STRP, forms.STRP):
        offset = int.from_bytes(data[pos : pos + osize], "little")
        text = strings.read.get((form, offset))
        if text is None:
            section = strings.line_str if form == forms.LINE_STRP else strings.str
            text = strings.read[form, offset] = string_at(section, offset)
        return text, pos + osize
    if form == forms.UDATA:
        return uleb(data, pos)
    if form == forms.SDATA:
        return sleb(data, pos)
    if form == forms.STRX:
        index, pos = uleb(data, pos)
        return _strx(strings, index, osize), pos
    size = _FIXED_SIZES.get(form)
    if size is not None:
        if pos + size > len(data):
            raise IndexError("form value past the end")
        value = int.from_bytes(data[pos : pos + size], "little")
        if form in forms.STRX_FIXED:
            return _strx(strings, value, osize), pos + size
        return (value if size <= 8 else None), pos + size
    if form == forms.BLOCK or form in _BLOCK_WIDTHS:
        if form == forms.BLOCK:
            size, pos = uleb(data, pos)
        else:
            width = _BLOCK_WIDTHS[form]
            size = int.from_bytes(data[pos : pos + width], "little")
            pos += width
        if pos + size > len(data):
            raise IndexError("block past the end")
        return None, pos + size
    raise TargetError(f"unsupported form {form:#x} in a line table header")


def _strx(strings: StringSections, index: int, osize: int) -> str:
    at = strings.str_offsets_base + index * osize
    if at + osize > len(strings.str_offsets):
        raise TargetError(f"string index {index} is outside .debug_str_offsets")
    return string_at(strings.str, int.from_bytes(strings.str_offsets[at : at + osize], "little"))


class LineRows:
    """The decoded rows of one line program, in program order (sorted within a sequence).

    Parallel arrays; each sequence ends with its END_SEQUENCE row.
    """

    __slots__ = ("address", "file", "line", "column", "flags", "sequences")

    def __init__(self) -> None:
        self.address = array("Q")
        self.file = array("L")
        self.line = array("q")
        self.column = array("L")
        self.flags = array("B")
        # (first row, index of the END_SEQUENCE row, low address, high address), by low.
        self.sequences: list[tuple[int, int, int, int]] = []

    def __len__(self) -> int:
        return len(self.address)


def decode_rows(data: bytes, header: LineHeader, base: int = 0, *, keep_switched: bool = False) -> LineRows:
    """Run the line program of `header`; `data` holds .debug_line from offset `base`.

    Sequences at address 0 (code the linker discarded) and unterminated ones are dropped.
    `keep_switched`: keep a file's rows at the address where the program switches to
    another file (a file's own line table ends them there; see symtab_lines.py).
    """
    try:
        return _decode(data, header, base, keep_switched)
    except (IndexError, ValueError, struct.error, OverflowError) as exc:
        raise TargetError(f"malformed line program at {header.offset:#x}: {exc}") from exc


def _decode(data: bytes, header: LineHeader, base: int, keep_switched: bool) -> LineRows:  # noqa: C901, PLR0912, PLR0915 - hot loop
    # (a row is made right after the opcode that makes it; the others `continue`; the
    # opcodes tested in the order gcc's programs use them most; one- and two-byte LEB128
    # read in place: 30% less time than a flag tested at every opcode and a call per LEB)
    rows = LineRows()
    addresses = rows.address
    r_addr, r_file, r_line, r_col, r_flags = (
        addresses.append, rows.file.append, rows.line.append, rows.column.append,
        rows.flags.append)  # fmt: skip
    pos = header.program - base
    end = min(header.end - base, len(data))
    opcode_base = header.opcode_base
    lengths = header.opcode_lengths
    min_inst = header.min_inst
    # Special opcodes: (address advance, line advance), precomputed.
    special = [(0, 0)] * opcode_base + [
        (((op - opcode_base) // header.line_range) * min_inst,
         header.line_base + (op - opcode_base) % header.line_range)
        for op in range(opcode_base, 256)
    ]  # fmt: skip
    const_add = special[255][0]
    default_flags = IS_STMT if header.default_is_stmt else 0
    address, file, line, column, flags = 0, 1, 1, 0, default_flags
    seq_start = 0
    sequences = rows.sequences
    count = 0
    # gdb's rules (dwarf2/read.c), so that rows and ranges agree with it: rows at line 0
    # are dropped; so is a row repeating the previous row's file and line when the line has
    # a discriminator; a switch to another file at the same address erases the previous
    # file's rows there, unless the new row is not a statement and one was at the address.
    disc, line_disc, last_file, last_line = 0, False, -1, -1
    last_address, stmt_here = -1, False
    while pos < end:
        op = data[pos]
        pos += 1
        if op >= opcode_base:
            adv_addr, adv_line = special[op]
            address += adv_addr
            if adv_line:
                line += adv_line
                line_disc = disc != 0
        elif op == 5:  # DW_LNS_set_column
            column = data[pos]
            if column < 0x80:
                pos += 1
            else:
                column, pos = uleb(data, pos)
            continue
        elif op == 6:  # DW_LNS_negate_stmt
            flags ^= IS_STMT
            continue
        elif op == 1:  # DW_LNS_copy: a row
            pass
        elif op == 3:  # DW_LNS_advance_line
            value = data[pos]
            if value < 0x80:
                pos += 1
                if value & 0x40:
                    value -= 0x80
            elif data[pos + 1] < 0x80:
                high = data[pos + 1]
                value = (value & 0x7F) | high << 7
                pos += 2
                if high & 0x40:
                    value -= 1 << 14
            else:
                value, pos = sleb(data, pos)
            line += value
            if value:
                line_disc = disc != 0
            continue
        elif op == 4:  # DW_LNS_set_file
            file = data[pos]
            if file < 0x80:
                pos += 1
            else:
                file, pos = uleb(data, pos)
            continue
        elif op == 0:  # extended opcode
            size, pos = uleb(data, pos)
            next_pos = pos + size
            if size == 0:
                continue
            sub = data[pos]
            if sub == 1:  # DW_LNE_end_sequence
                r_addr(address & _MASK64), r_file(file), r_line(line), r_col(column)
                r_flags(flags | END_SEQUENCE)
                count += 1
                low = addresses[seq_start]
                if count - seq_start > 1 and 0 < low < _TOMBSTONE:
                    sequences.append((seq_start, count - 1, low, address & _MASK64))
                else:
                    _truncate(rows, seq_start)
                    count = seq_start
                seq_start = count
                address, file, line, column, flags = 0, 1, 1, 0, default_flags
                disc, line_disc, last_file, last_line = 0, False, -1, -1
                last_address, stmt_here = -1, False
            elif sub == 2:  # DW_LNE_set_address
                address = int.from_bytes(data[pos + 1 : next_pos], "little")
            elif sub == 4:  # DW_LNE_set_discriminator
                disc = uleb(data, pos + 1)[0]
                line_disc = line_disc or disc != 0
            # 3 define_file (obsolete), vendor ones: skipped
            pos = next_pos
            continue
        elif op == 8:  # DW_LNS_const_add_pc
            address += const_add
            continue
        elif op == 2:  # DW_LNS_advance_pc
            value, pos = uleb(data, pos)
            address += value * min_inst
            continue
        elif op == 9:  # DW_LNS_fixed_advance_pc
            address += data[pos] | data[pos + 1] << 8
            pos += 2
            continue
        elif op == 10:
            flags |= PROLOGUE_END
            continue
        else:  # 7 basic_block, 11 epilogue_begin, 12 isa, unknown: skip their arguments
            for _ in range(lengths[op - 1]):
                _value, pos = uleb(data, pos)
            continue
        # A row: a special opcode's or DW_LNS_copy's.
        if line and (not line_disc or file != last_file or line != last_line or count == seq_start):
            switched = file != last_file and count > seq_start
            if not (switched and address == last_address and not flags & IS_STMT and stmt_here):
                if switched and not keep_switched:
                    while count > seq_start and addresses[count - 1] == address & _MASK64:
                        _truncate(rows, count - 1)
                        count -= 1
                r_addr(address & _MASK64)
                r_file(file)
                r_line(line)
                r_col(column)
                r_flags(flags)
                count += 1
                last_file, last_line = file, line
        if address != last_address:
            last_address, stmt_here = address, False
        if flags & IS_STMT:
            stmt_here = True
        flags &= IS_STMT
        disc = 0
    _truncate(rows, seq_start)  # an unterminated last sequence
    sequences.sort(key=lambda s: s[2])
    return rows


def _truncate(rows: LineRows, size: int) -> None:
    for column in (rows.address, rows.file, rows.line, rows.column, rows.flags):
        del column[size:]
