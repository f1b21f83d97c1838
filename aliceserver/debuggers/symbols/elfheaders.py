"""The one parser of ELF64 file, program and section headers (extended numbering resolved).

struct over os.pread rather than pyelftools' ELFFile: it builds its parsers per file and an
object per segment and section, which costs more than the rest of a library's load. Each
caller says in its own words why a file is not for it (classify), and turns MalformedElf
(a truncated file, tables pointing past its end) into its own error. Its layouts are the
ones the core writer packs too, and its note reader serves symbol files and core files.
"""

from __future__ import annotations

import enum
import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass, replace

ET_CORE = 4
EM_X86_64 = 62
PF_X = 0x1
PF_W = 0x2
PF_R = 0x4
SHF_ALLOC = 0x2
SHF_TLS = 0x400
SHF_COMPRESSED = 0x800
SHT_SYMTAB = 2
SHT_NOBITS = 8
SHT_DYNSYM = 11
SHT_GNU_VERSYM = 0x6FFFFFFF

PT_LOAD = 1
PT_DYNAMIC = 2
PT_INTERP = 3
PT_NOTE = 4
PT_PHDR = 6
PN_XNUM = 0xFFFF
SHN_XINDEX = 0xFFFF
NT_GNU_BUILD_ID = 3

# The layouts in x86-64's byte order, read here and packed by the core writer.
EI_NIDENT = 16
EHDR_FIELDS = struct.Struct("<HHIQQQIHHHHHH")  # Elf64_Ehdr after e_ident
SHDR = struct.Struct("<IIQQQQIIQQ")  # Elf64_Shdr
PHDR = struct.Struct("<IIQQQQQQ")  # Elf64_Phdr
NHDR = struct.Struct("<III")  # Elf64_Nhdr: n_namesz, n_descsz, n_type
EHDR_SIZE = EI_NIDENT + EHDR_FIELDS.size  # 64
# The same layouts in the other byte order, built once rather than per file.
_BIG = {s: struct.Struct(">" + s.format[1:]) for s in (EHDR_FIELDS, SHDR, PHDR, NHDR)}


class ElfClass(enum.Enum):
    """What e_ident says a file is."""

    NOT_ELF = "not ELF"
    ELF32 = "32-bit"
    ELF64_LSB = "64-bit little-endian"
    ELF64_MSB = "64-bit big-endian"
    UNKNOWN = "unknown class or byte order"


class MalformedElf(ValueError):
    """Headers that are truncated or claim bytes past the end of the file."""


@dataclass(frozen=True, slots=True)
class ElfHeader:
    """The Elf64_Ehdr fields the tables are found by, extended numbering resolved."""

    little_endian: bool
    type: int  # ET_*
    machine: int  # EM_*
    entry: int
    phoff: int
    phentsize: int
    phnum: int
    shoff: int
    shentsize: int
    shnum: int
    shstrndx: int
    file_size: int  # every table must lie inside it


# Segment and Section are read-only by convention, not frozen: a frozen dataclass is built
# 5x slower, and every library load builds dozens of them.
@dataclass(slots=True)
class Segment:
    type: int  # PT_*
    offset: int
    vaddr: int
    filesz: int
    memsz: int
    flags: int  # PF_X | PF_W | PF_R
    align: int


@dataclass(slots=True)
class Section:
    index: int
    name: str
    type: int  # SHT_*
    addr: int
    offset: int
    size: int
    flags: int
    link: int
    entsize: int


def classify(ident: bytes) -> ElfClass:
    """The kind of file whose first bytes (at least e_ident's 16) are `ident`."""
    if len(ident) < 16 or ident[:4] != b"\x7fELF":
        return ElfClass.NOT_ELF
    if ident[4] == 1:
        return ElfClass.ELF32
    if ident[4] != 2 or ident[5] not in (1, 2):
        return ElfClass.UNKNOWN
    return ElfClass.ELF64_LSB if ident[5] == 1 else ElfClass.ELF64_MSB


def parse_header(head: bytes, file_size: int) -> ElfHeader:
    """The file header whose first EHDR_SIZE bytes are `head` (classify(head) said ELF64)
    as written: extended numbering is read_header's. `file_size` bounds the tables read_at
    reaches (0 for an image in memory, read by its own means)."""
    if len(head) < EHDR_SIZE:
        raise MalformedElf("the ELF header is truncated")
    little = head[5] == 1
    (e_type, machine, _version, entry, phoff, shoff, _flags, _ehsize, phentsize, phnum,
     shentsize, shnum, shstrndx) = _layout(EHDR_FIELDS, little).unpack_from(head, EI_NIDENT)  # fmt: skip
    return ElfHeader(
        little, e_type, machine, entry, phoff, phentsize, phnum, shoff, shentsize, shnum,
        shstrndx, file_size,
    )  # fmt: skip


def read_header(fd: int, head: bytes) -> ElfHeader:
    """The file header of the ELF64 file open as `fd`, whose first EHDR_SIZE bytes are
    `head` (classify(head) said ELF64); section 0 is read when extended numbering is used."""
    header = parse_header(head, os.fstat(fd).st_size)
    if not header.shoff:
        return replace(header, shnum=0) if header.shnum else header
    shnum, phnum, shstrndx = header.shnum, header.phnum, header.shstrndx
    if shnum and phnum != PN_XNUM and shstrndx != SHN_XINDEX:
        return header
    # Extended numbering: the real counts and index live in section header 0.
    first = _layout(SHDR, header.little_endian).unpack(
        _read(fd, header.shoff, SHDR.size, header.file_size)
    )
    return replace(
        header,
        shnum=shnum or first[5],  # sh_size
        shstrndx=first[6] if shstrndx == SHN_XINDEX else shstrndx,  # sh_link
        phnum=first[7] if phnum == PN_XNUM else phnum,  # sh_info
    )


def read_segments(fd: int, header: ElfHeader) -> list[Segment]:
    """The program headers of `header`'s file."""
    count, entsize = header.phnum, header.phentsize
    if count == 0 or header.phoff == 0:
        return []
    if entsize < PHDR.size:
        raise MalformedElf(f"program header size {entsize} is too small")
    table = _read(fd, header.phoff, count * entsize, header.file_size)
    return parse_segments(table, entsize, header.little_endian)


def parse_segments(table: bytes, entsize: int, little_endian: bool) -> list[Segment]:
    """The program headers in `table`, one every `entsize` (at least PHDR.size) bytes; a
    last one cut short is left out."""
    unpack = _layout(PHDR, little_endian).unpack_from
    segments = []
    for at in range(0, len(table) - entsize + 1, entsize):
        type_, flags, offset, vaddr, _paddr, filesz, memsz, align = unpack(table, at)
        segments.append(Segment(type_, offset, vaddr, filesz, memsz, flags, align))
    return segments


def read_sections(fd: int, header: ElfHeader) -> list[Section]:
    """The section headers of `header`'s file, with their names."""
    count, entsize = header.shnum, header.shentsize
    if count == 0:
        return []
    if entsize < SHDR.size:
        raise MalformedElf(f"section header size {entsize} is too small")
    table = _read(fd, header.shoff, count * entsize, header.file_size)
    unpack = _layout(SHDR, header.little_endian).unpack_from
    rows = [unpack(table, at) for at in range(0, count * entsize, entsize)]
    names = b""
    if 0 < header.shstrndx < count:
        names_row = rows[header.shstrndx]
        names = _read(fd, names_row[4], names_row[5], header.file_size)
    sections = []
    for index, (name, type_, flags, addr, offset, size, link, _info, _align, ent) in enumerate(
        rows
    ):
        end = names.find(b"\0", name)
        text = names[name : end if end >= 0 else None].decode("utf-8", "surrogateescape")
        sections.append(Section(index, text, type_, addr, offset, size, flags, link, ent))
    return sections


def read_at(fd: int, header: ElfHeader, offset: int, size: int) -> bytes:
    """`size` bytes at file `offset`, MalformedElf when they are not all in the file."""
    return _read(fd, offset, size, header.file_size)


@dataclass(frozen=True, slots=True)
class Note:
    """One note of a PT_NOTE segment (or SHT_NOTE section)."""

    owner: str  # "GNU", "CORE", "LINUX"...
    type: int  # NT_*, whose meaning depends on the owner
    desc: bytes


def iter_notes(data: bytes, *, little_endian: bool = True, align: int = 4) -> Iterator[Note]:
    """The notes in a PT_NOTE segment's bytes, name and descriptor each padded to `align`
    (4, or 8 in a segment aligned to 8); MalformedElf where one runs past the segment."""
    header = _layout(NHDR, little_endian)
    position = 0
    while position + header.size <= len(data):
        namesz, descsz, note_type = header.unpack_from(data, position)
        name_at = position + header.size
        desc_at = name_at + _align_up(namesz, align)
        end = desc_at + descsz
        if end > len(data):
            raise MalformedElf(f"note of type {note_type:#x} runs past its segment")
        owner = data[name_at : name_at + namesz].split(b"\0", 1)[0].decode("latin-1")
        yield Note(owner, note_type, data[desc_at:end])
        position = desc_at + _align_up(descsz, align)


def _align_up(value: int, align: int) -> int:
    return (value + align - 1) & -align


def _layout(layout: struct.Struct, little: bool) -> struct.Struct:
    return layout if little else _BIG[layout]


def _read(fd: int, offset: int, size: int, file_size: int) -> bytes:
    # Bounds first: a corrupt header may claim sizes that would exhaust memory.
    if offset < 0 or size < 0 or offset + size > file_size:
        raise MalformedElf(f"{size} bytes at file offset {offset:#x} are past the end")
    data = os.pread(fd, size, offset)
    if len(data) != size:
        raise MalformedElf(f"{size} bytes at file offset {offset:#x} are past the end")
    return data
