"""Read an ELF64 file's headers (through elfheaders) and the raw bytes of the few sections
the symbol table, version filter and PLT synthesis parse; only the type and machine names
come from pyelftools' tables (a machine other than the two debugged here from its table of
them, imported when one is met: about 1 ms of each start)."""

from __future__ import annotations

import errno as errno_mod
import os
import struct
from collections.abc import Mapping
from dataclasses import dataclass

from aliceserver.debuggers.symbols.elfheaders import (
    EHDR_SIZE,
    NT_GNU_BUILD_ID,
    PT_INTERP,
    PT_NOTE,
    SHT_DYNSYM,
    SHT_GNU_VERSYM,
    SHT_NOBITS,
    SHT_SYMTAB,
    ElfClass,
    ElfHeader,
    MalformedElf,
    Section,
    Segment,
    classify,
    iter_notes,
    read_at,
    read_header,
    read_sections,
    read_segments,
)
from aliceserver.errors import TargetError, Unsupported

# pyelftools' ENUM_E_TYPE, and of its ENUM_E_MACHINE the machines debugged here, by number
_TYPES = {0: "ET_NONE", 1: "ET_REL", 2: "ET_EXEC", 3: "ET_DYN", 4: "ET_CORE", 0xFF00: "ET_LOPROC",
          0xFFFF: "ET_HIPROC"}  # fmt: skip
_MACHINES = {62: "EM_X86_64", 183: "EM_AARCH64"}

# Sections whose bytes the symbol table, version filter and PLT synthesis need.
_WANTED_TYPES = frozenset({SHT_SYMTAB, SHT_DYNSYM, SHT_GNU_VERSYM})
_WANTED_NAMES = frozenset({".rela.plt", ".plt", ".plt.sec", ".plt.got"})


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
            fd = stream.fileno()
            head = os.pread(fd, EHDR_SIZE, 0)
            _check_class(path, classify(head))
            return _read(fd, read_header(fd, head))
    except OSError as exc:
        raise TargetError(
            f"cannot read {path}: {exc.strerror or exc}", errno=exc.errno or errno_mod.EIO
        ) from exc
    except (MalformedElf, struct.error, ValueError, IndexError, OverflowError) as exc:
        # truncated or inconsistent files
        raise TargetError(f"{path}: malformed ELF file ({exc})") from exc


def _check_class(path: str, kind: ElfClass) -> None:
    if kind is ElfClass.NOT_ELF:
        raise TargetError(f"{path}: not an ELF file")
    if kind is ElfClass.ELF32:
        raise Unsupported(f"{path}: 32-bit ELF files are not supported")
    if kind is ElfClass.UNKNOWN:
        raise TargetError(f"{path}: unknown ELF class or byte order")


def _read(fd: int, header: ElfHeader) -> ElfContents:
    segments = read_segments(fd, header)
    build_id: str | None = None
    interp: str | None = None
    for seg in segments:
        if seg.type == PT_INTERP:
            data = read_at(fd, header, seg.offset, min(seg.filesz, 4096))  # PATH_MAX
            interp = data.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
        elif seg.type == PT_NOTE and build_id is None:
            notes = read_at(fd, header, seg.offset, seg.filesz)
            build_id = _find_build_id(notes, seg, header.little_endian)
    sections = read_sections(fd, header)
    return ElfContents(
        little_endian=header.little_endian,
        elf_type=_TYPES.get(header.type, str(header.type)),
        machine=machine_name(header.machine),
        entry=header.entry,
        phoff=header.phoff,
        segments=tuple(segments),
        sections=tuple(sections),
        build_id=build_id,
        interp=interp,
        raw=_read_raw_sections(fd, header, sections),
    )


def _find_build_id(data: bytes, seg: Segment, little_endian: bool) -> str | None:
    """The NT_GNU_BUILD_ID note of a PT_NOTE segment's bytes, as hex."""
    align = 8 if seg.align == 8 else 4
    try:
        for note in iter_notes(data, little_endian=little_endian, align=align):
            if note.type == NT_GNU_BUILD_ID and note.owner == "GNU":
                return note.desc.hex()
    except MalformedElf:
        pass  # a damaged note must not make the whole file unusable
    return None


def _read_raw_sections(fd: int, header: ElfHeader, sections: list[Section]) -> dict[int, bytes]:
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
        raw[index] = read_at(fd, header, sec.offset, sec.size)
    return raw


def machine_name(number: int) -> str:
    """e_machine's name as pyelftools' ENUM_E_MACHINE gives it (the number when unnamed)."""
    name = _MACHINES.get(number)
    if name is None:
        from elftools.elf.enums import ENUM_E_MACHINE

        _MACHINES.update({value: name for name, value in ENUM_E_MACHINE.items() if not name.startswith("_")})
        name = _MACHINES.get(number)
    return str(number) if name is None else name
