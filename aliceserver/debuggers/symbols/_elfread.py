"""Read an ELF64 file's headers and the raw bytes of the few sections we parse.

struct walks rather than pyelftools' ELFFile: it builds its parsers per file and an object
per segment and section (and parses hash tables while at it), which costs more than all
the rest of a load; only the type and machine names come from its tables.
"""

from __future__ import annotations

import errno as errno_mod
import os
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import BinaryIO

from elftools.elf.enums import ENUM_E_MACHINE, ENUM_E_TYPE

from aliceserver.errors import TargetError, Unsupported

PF_X = 0x1
SHF_ALLOC = 0x2
SHF_TLS = 0x400
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
_TYPES = {value: name for name, value in ENUM_E_TYPE.items() if not name.startswith("_")}
_MACHINES = {value: name for name, value in ENUM_E_MACHINE.items() if not name.startswith("_")}
NT_GNU_BUILD_ID = 3

_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")  # Elf64_Ehdr
_SHDR = struct.Struct("<IIQQQQIIQQ")  # Elf64_Shdr
_PHDR = struct.Struct("<IIQQQQQQ")  # Elf64_Phdr

# Sections whose bytes the symbol table, version filter and PLT synthesis need.
_WANTED_TYPES = frozenset({SHT_SYMTAB, SHT_DYNSYM, SHT_GNU_VERSYM})
_WANTED_NAMES = frozenset({".rela.plt", ".plt", ".plt.sec", ".plt.got"})


@dataclass(frozen=True, slots=True)
class Segment:
    type: int  # PT_*
    offset: int
    vaddr: int
    filesz: int
    memsz: int
    flags: int  # PF_X | PF_W | PF_R
    align: int


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class ElfContents:
    """Everything ElfImage keeps from the file; the file itself is closed afterwards."""

    little_endian: bool
    elf_type: str  # "ET_EXEC", "ET_DYN", ...
    machine: str  # "EM_X86_64", ...
    entry: int
    phoff: int
    segments: tuple[Segment, ...]
    sections: tuple[Section, ...]
    build_id: str | None
    interp: str | None
    raw: Mapping[int, bytes]  # section index -> bytes, only for the sections we parse


def read_elf(path: str) -> ElfContents:
    """Open and read `path`; TargetError if it is missing or not ELF, Unsupported for ELF32."""
    try:
        with open(path, "rb") as stream:
            _check_ident(path, stream.read(16))
            stream.seek(0)
            return _read(stream)
    except OSError as exc:
        raise TargetError(
            f"cannot read {path}: {exc.strerror or exc}", errno=exc.errno or errno_mod.EIO
        ) from exc
    except (struct.error, ValueError, IndexError, OverflowError) as exc:
        # truncated or inconsistent files
        raise TargetError(f"{path}: malformed ELF file ({exc})") from exc


def _check_ident(path: str, ident: bytes) -> None:
    if len(ident) < 16 or ident[:4] != b"\x7fELF":
        raise TargetError(f"{path}: not an ELF file")
    if ident[4] == 1:
        raise Unsupported(f"{path}: 32-bit ELF files are not supported")
    if ident[4] != 2 or ident[5] not in (1, 2):
        raise TargetError(f"{path}: unknown ELF class or byte order")


@dataclass(frozen=True, slots=True)
class _Header:
    """The Elf64_Ehdr fields the tables are found by, extended numbering resolved."""

    endian: str
    phoff: int
    phentsize: int
    phnum: int
    shoff: int
    shentsize: int
    shnum: int
    shstrndx: int


def _read(stream: BinaryIO) -> ElfContents:
    ident = _read_at(stream, 0, _EHDR.size)
    endian = "<" if ident[5] == 1 else ">"
    (_ident, e_type, e_machine, _version, entry, phoff, shoff, _flags, _ehsize, phentsize,
     phnum, shentsize, shnum, shstrndx) = struct.unpack(endian + _EHDR.format[1:], ident)  # fmt: skip
    section0: tuple[int, ...] = ()
    if shoff and (shnum == 0 or phnum == PN_XNUM or shstrndx == SHN_XINDEX):
        # Extended numbering: the real counts and index live in section header 0.
        section0 = struct.unpack(endian + _SHDR.format[1:], _read_at(stream, shoff, _SHDR.size))
    if not shoff:
        shnum = 0
    elif shnum == 0:
        shnum = section0[5]  # sh_size
    if phnum == PN_XNUM and shnum > 0:
        phnum = section0[7]  # sh_info
    if shstrndx == SHN_XINDEX and section0:
        shstrndx = section0[6]  # sh_link
    header = _Header(endian, phoff, phentsize, phnum, shoff, shentsize, shnum, shstrndx)
    segments = _read_program_headers(stream, header)
    build_id: str | None = None
    interp: str | None = None
    for seg in segments:
        if seg.type == PT_INTERP:
            interp = _read_interp(stream, seg)
        elif seg.type == PT_NOTE and build_id is None:
            build_id = _find_build_id(_read_at(stream, seg.offset, seg.filesz), seg, endian)
    sections = _read_section_headers(stream, header)
    return ElfContents(
        little_endian=endian == "<",
        elf_type=_TYPES.get(e_type, str(e_type)),
        machine=_MACHINES.get(e_machine, str(e_machine)),
        entry=entry,
        phoff=phoff,
        segments=tuple(segments),
        sections=tuple(sections),
        build_id=build_id,
        interp=interp,
        raw=_read_raw_sections(stream, sections),
    )


def _read_at(stream: BinaryIO, offset: int, size: int) -> bytes:
    # Bounds first: a corrupt header may claim sizes that would exhaust memory.
    end = stream.seek(0, os.SEEK_END)
    if offset < 0 or size < 0 or offset + size > end:
        raise ValueError(f"{size} bytes at file offset {offset:#x} are past the end")
    stream.seek(offset)
    return stream.read(size)


def _read_program_headers(stream: BinaryIO, header: _Header) -> list[Segment]:
    count, entsize, phoff = header.phnum, header.phentsize, header.phoff
    if count == 0 or phoff == 0:
        return []
    if entsize < _PHDR.size:
        raise ValueError(f"program header size {entsize} is too small")
    table = _read_at(stream, phoff, count * entsize)
    fmt = struct.Struct(header.endian + _PHDR.format[1:])
    segments = []
    for i in range(count):
        type_, flags, offset, vaddr, _paddr, filesz, memsz, align = fmt.unpack_from(
            table, i * entsize
        )
        segments.append(Segment(type_, offset, vaddr, filesz, memsz, flags, align))
    return segments


def _read_section_headers(stream: BinaryIO, header: _Header) -> list[Section]:
    count, shoff, entsize = header.shnum, header.shoff, header.shentsize
    if count == 0 or shoff == 0:
        return []
    if entsize < _SHDR.size:
        raise ValueError(f"section header size {entsize} is too small")
    table = _read_at(stream, shoff, count * entsize)
    fmt = struct.Struct(header.endian + _SHDR.format[1:])
    headers = [fmt.unpack_from(table, i * entsize) for i in range(count)]
    names = b""
    shstrndx = header.shstrndx
    if 0 < shstrndx < count:
        _n, _t, _f, _a, str_offset, str_size, *_rest = headers[shstrndx]
        names = _read_at(stream, str_offset, str_size)
    sections = []
    for index, (name, type_, flags, addr, offset, size, link, _info, _align, ent) in enumerate(
        headers
    ):
        end = names.find(b"\0", name)
        sections.append(
            Section(
                index=index,
                name=names[name : end if end >= 0 else None].decode("utf-8", "surrogateescape"),
                type=type_,
                addr=addr,
                offset=offset,
                size=size,
                flags=flags,
                link=link,
                entsize=ent,
            )
        )
    return sections


def _read_interp(stream: BinaryIO, segment: Segment) -> str:
    data = _read_at(stream, segment.offset, min(segment.filesz, 4096))  # PATH_MAX
    return data.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")


def _find_build_id(data: bytes, seg: Segment, endian: str) -> str | None:
    """The NT_GNU_BUILD_ID note of a PT_NOTE segment's bytes, as hex."""
    align = 8 if seg.align == 8 else 4
    header = struct.Struct(endian + "III")
    pos = 0
    while pos + header.size <= len(data):
        namesz, descsz, note_type = header.unpack_from(data, pos)
        name_at = pos + header.size
        desc_at = name_at + _align_up(namesz, align)
        if desc_at + descsz > len(data):
            break  # a damaged note must not make the whole file unusable
        if note_type == NT_GNU_BUILD_ID and data[name_at : name_at + namesz] == b"GNU\0":
            return data[desc_at : desc_at + descsz].hex()
        pos = desc_at + _align_up(descsz, align)
    return None


def _align_up(value: int, align: int) -> int:
    return (value + align - 1) & -align


def _read_raw_sections(stream: BinaryIO, sections: list[Section]) -> dict[int, bytes]:
    wanted: set[int] = set()
    for sec in sections:
        if sec.type in _WANTED_TYPES or sec.name in _WANTED_NAMES:
            wanted.add(sec.index)
            if sec.type in (SHT_SYMTAB, SHT_DYNSYM) and 0 < sec.link < len(sections):
                wanted.add(sec.link)  # the string table
    if any(sec.name == ".plt.got" for sec in sections):
        # .plt.got slots are GLOB_DAT relocations, which live in .rela.dyn.
        wanted.update(sec.index for sec in sections if sec.name == ".rela.dyn")
    raw: dict[int, bytes] = {}
    for index in sorted(wanted, key=lambda i: sections[i].offset):
        sec = sections[index]
        if sec.type == SHT_NOBITS or sec.size == 0:
            continue
        raw[index] = _read_at(stream, sec.offset, sec.size)
    return raw
