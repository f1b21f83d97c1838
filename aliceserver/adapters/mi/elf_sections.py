"""An ELF file's sections as BFD makes them (what gdb's `info files` and `maint info
sections` list): every section header but the null one, the symbol table and the string
tables BFD keeps to itself (.symtab, .strtab, .shstrtab), with BFD's flags. Read from a
file or from memory (the vDSO the kernel maps)."""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass

_SHT_SYMTAB, _SHT_STRTAB, _SHT_NOBITS = 2, 3, 8
_SHF_WRITE, _SHF_ALLOC, _SHF_EXEC = 1, 2, 4
_HEADER = struct.Struct("<IIQQQQIIQQ")


@dataclass(frozen=True, slots=True)
class Section:
    index: int  # BFD's index (its order, the skipped headers not counted)
    name: str
    address: int
    size: int
    offset: int
    flags: tuple[str, ...]  # BFD's, in the order gdb prints them

    @property
    def alloc(self) -> bool:
        return "ALLOC" in self.flags


def _flags(kind: int, flags: int) -> tuple[str, ...]:
    """BFD's _bfd_elf_make_section_from_shdr, as far as gdb's print_bfd_flags shows it."""
    alloc, contents = bool(flags & _SHF_ALLOC), kind != _SHT_NOBITS
    load = alloc and contents
    shown = [name for name, on in (("ALLOC", alloc), ("LOAD", load), ("READONLY", not flags & _SHF_WRITE),
                                    ("CODE", bool(flags & _SHF_EXEC)), ("DATA", load and not flags & _SHF_EXEC),
                                    ("HAS_CONTENTS", contents)) if on]  # fmt: skip
    return tuple(shown)


def read_sections(read: Callable[[int, int], bytes]) -> list[Section]:
    """The sections of the ELF image `read(offset, size)` reads; [] when it is not ELF64."""
    ident = read(0, 64)
    if len(ident) < 64 or ident[:4] != b"\x7fELF" or ident[4] != 2:
        return []
    shoff, = struct.unpack_from("<Q", ident, 0x28)
    entsize, count, names_index = struct.unpack_from("<HHH", ident, 0x3A)
    if not shoff or entsize < _HEADER.size or not count:
        return []
    table = read(shoff, entsize * count)
    headers = [_HEADER.unpack_from(table, entsize * i) for i in range(count)]
    names_header = headers[names_index]
    names = read(names_header[4], names_header[5])
    linked_by_symtab = {h[6] for h in headers if h[1] == _SHT_SYMTAB}
    found: list[Section] = []
    for i, (name_at, kind, flags, address, offset, size, _link, _info, _align, _ent) in enumerate(headers):
        if i == 0 or kind == _SHT_SYMTAB or i == names_index or (kind == _SHT_STRTAB and i in linked_by_symtab):
            continue
        name = names[name_at:names.index(b"\0", name_at)].decode(errors="replace")
        found.append(Section(len(found), name, address, size, offset, _flags(kind, flags)))
    return found


def file_sections(path: str) -> list[Section]:
    try:
        with open(path, "rb") as image:
            def read(offset: int, size: int) -> bytes:
                image.seek(offset)
                return image.read(size)

            return read_sections(read)
    except (OSError, struct.error, ValueError, IndexError):
        return []


def entry_point(path: str) -> int | None:
    try:
        with open(path, "rb") as image:
            head = image.read(0x20)
    except OSError:
        return None
    return struct.unpack_from("<Q", head, 0x18)[0] if head[:4] == b"\x7fELF" and len(head) == 0x20 else None


def core_segments(path: str) -> list[Section]:
    """BFD's sections of a core file's PT_LOAD segments: `loadN` (N the segment's index
    among the program headers), split into `loadNa` and `loadNb` where only part of the
    segment is in the file."""
    try:
        with open(path, "rb") as image:
            head = image.read(64)
            if len(head) < 64 or head[:4] != b"\x7fELF":
                return []
            phoff, = struct.unpack_from("<Q", head, 0x20)
            entsize, count = struct.unpack_from("<HH", head, 0x36)
            image.seek(phoff)
            table = image.read(entsize * count)
    except (OSError, struct.error):
        return []
    found: list[Section] = []
    for i in range(count):
        kind, _flags, offset, vaddr, _paddr, filesz, memsz, _align = struct.unpack_from("<IIQQQQQQ", table, entsize * i)
        if kind != 1 or not memsz:  # PT_LOAD
            continue
        parts = [(f"load{i}a", vaddr, filesz), (f"load{i}b", vaddr + filesz, memsz - filesz)] \
            if 0 < filesz < memsz else [(f"load{i}", vaddr, memsz)]
        for name, address, size in parts:
            found.append(Section(len(found), name, address, size, offset, ("ALLOC",)))
    return found
