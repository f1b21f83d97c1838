"""Source file names as gdb 13 gives them to its symtabs (dwarf2_start_subfile and
buildsym's start_subfile): the line table's directory joined to the file's name as written,
not resolved, and the unit's own DW_AT_name where that joined name is the unit's file.

glibc's units are compiled from a relative directory (DW_AT_comp_dir `./nptl`, DWARF 5
directory 0 the same): gdb names pthread_kill.c's lines `./nptl/pthread_kill.c` and raise's
`../sysdeps/posix/raise.c`, and a file it cannot find has the fullname DW_AT_comp_dir/NAME
(`./nptl/./nptl/pthread_kill.c`). The line index keeps paths normalized (lines.py); this
maps each of a unit's back to gdb's name.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass

from aliceserver.debuggers.symbols.dwarf.lines import StringSections, _v5_entries, parse_header
from aliceserver.debuggers.symbols.dwarf.rawread import cstring, uleb, unit_length


@dataclass(frozen=True, slots=True)
class SymtabName:
    filename: str  # gdb's symtab filename: `file=`, `at FILE:LINE`
    missing_fullname: str  # gdb's fullname while the file is found nowhere


def symtab_names(
    data: bytes, offset: int, comp_dir: str, cu_name: str, strings: StringSections
) -> dict[str, SymtabName]:
    """The line table at `offset`'s files, by their normalized paths (LineHeader.files)."""
    header = parse_header(data, offset, comp_dir, cu_name, strings)
    version, written = _written_files(data, offset, strings)
    names: dict[str, SymtabName] = {}
    first = 0 if version >= 5 else 1  # before DWARF 5, file numbers start at 1
    for path, name in zip(header.files[first:], written, strict=False):
        if path and path not in names:
            filename = _primary(name, comp_dir, cu_name)
            # gdb's symtab_to_fullname for a file it cannot open: its directory, then the name
            full = filename if os.path.isabs(filename) or not comp_dir else f"{comp_dir}/{filename}"
            names[path] = SymtabName(filename, full)
    return names


def _primary(name: str, comp_dir: str, cu_name: str) -> str:
    """The unit's own name where `name` is its file (gdb finds the subfile its symtab
    started with: the same string, or the same once joined to DW_AT_comp_dir)."""
    if name == cu_name:
        return cu_name
    if cu_name and comp_dir and os.path.isabs(name) and not os.path.isabs(cu_name):
        if name == f"{comp_dir.rstrip('/')}/{cu_name}":
            return cu_name
    return name


def _written_files(data: bytes, offset: int, strings: StringSections) -> tuple[int, list[str]]:
    """(version, each file entry's directory and name joined as written): directory 0 is
    the compilation directory itself in DWARF 5 and none before (gdb's include_dir_at)."""
    _length, osize, pos = unit_length(data, offset)
    (version,) = struct.unpack_from("<H", data, pos)
    pos += 2 + (2 if version >= 5 else 0) + osize + 1  # address/segment sizes, header_length, min_inst
    pos += (1 if version >= 4 else 0) + 3  # max ops, default_is_stmt, line_base, line_range
    opcode_base = data[pos]
    pos += opcode_base  # opcode_base, then its standard_opcode_lengths
    if version >= 5:
        dirs, pos = _v5_entries(data, pos, osize, strings)
        files, pos = _v5_entries(data, pos, osize, strings)
        directories = [d for d, _ in dirs]
        return version, [_joined(name, directories[i] if 0 <= i < len(directories) else None)
                         for name, i in files]  # fmt: skip
    directories = []
    while data[pos]:
        directory, pos = cstring(data, pos)
        directories.append(directory)
    pos += 1
    written = []
    while data[pos]:
        name, pos = cstring(data, pos)
        index, pos = uleb(data, pos)
        _mtime, pos = uleb(data, pos)
        _size, pos = uleb(data, pos)
        written.append(_joined(name, directories[index - 1] if 1 <= index <= len(directories) else None))
    return version, written


def _joined(name: str, directory: str | None) -> str:
    if not name or os.path.isabs(name) or not directory:
        return name
    return f"{directory}/{name}"
