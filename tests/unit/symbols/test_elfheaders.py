"""The one ELF header parser (elfheaders) against readelf, extended numbering, and the words
each of its callers says for a file that is not for it."""

from __future__ import annotations

import re
import struct
from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.symbols.dwarf.cfi import CfiTable
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections, read_section_headers
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.debuggers.symbols.elfheaders import (
    PN_XNUM,
    SHN_XINDEX,
    ElfClass,
    MalformedElf,
    classify,
    read_header,
    read_sections,
    read_segments,
)
from aliceserver.errors import TargetError, Unsupported

_SECTION_LINE = re.compile(
    r"^\s*\[\s*(\d+)\]\s+(\S*)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s",
    re.M,
)
_SEGMENT_LINE = re.compile(
    r"^\s*[A-Z_]+\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+0x\S+\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)", re.M
)


def _parse(path: Path) -> tuple[Any, list[Any], list[Any]]:
    with open(path, "rb") as stream:
        fd = stream.fileno()
        head = stream.read(64)
        header = read_header(fd, head)
        return header, read_sections(fd, header), read_segments(fd, header)


def _readelf_sections(ctools: Any, path: Path) -> list[tuple[int, str, int, int, int, int]]:
    text = ctools.readelf("-S", str(path))
    return [  # section 0 has no name: readelf's columns shift there
        (int(m[1]), m[2], int(m[3], 16), int(m[4], 16), int(m[5], 16), int(m[6], 16))
        for m in _SECTION_LINE.finditer(text)
        if m[1] != "0"
    ]


def _extended(original: Path, out: Path) -> Path:
    """`original` rewritten to ELF's extended numbering: e_shnum 0, e_shstrndx SHN_XINDEX
    and e_phnum PN_XNUM, the real values in section header 0 (sh_size, sh_link, sh_info)."""
    data = bytearray(original.read_bytes())
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    phnum, _shentsize, shnum, shstrndx = struct.unpack_from("<HHHH", data, 0x38)
    struct.pack_into("<HHHH", data, 0x38, PN_XNUM, 64, 0, SHN_XINDEX)
    struct.pack_into("<Q", data, shoff + 0x20, shnum)  # sh_size
    struct.pack_into("<II", data, shoff + 0x28, shstrndx, phnum)  # sh_link, sh_info
    out.write_bytes(bytes(data))
    return out


def test_headers_match_readelf(program_pie: Path, ctools: Any) -> None:
    header, sections, segments = _parse(program_pie)
    assert header.little_endian and header.machine == 62  # EM_X86_64
    expected = _readelf_sections(ctools, program_pie)
    assert len(expected) == len(sections) - 1 > 20
    got = [(s.index, s.name, s.addr, s.offset, s.size, s.entsize) for s in sections[1:]]
    assert got == expected
    program = ctools.readelf("-l", str(program_pie))
    assert [(s.offset, s.vaddr, s.filesz, s.memsz) for s in segments] == [
        tuple(int(v, 16) for v in m.groups()) for m in _SEGMENT_LINE.finditer(program)
    ]


def test_extended_numbering(program_pie: Path, ctools: Any, tmp_path: Path) -> None:
    extended = _extended(program_pie, tmp_path / "extended")
    # readelf reads the rewritten file as the original: it is a valid ELF file
    assert _readelf_sections(ctools, extended) == _readelf_sections(ctools, program_pie)
    header, sections, segments = _parse(extended)
    original = _parse(program_pie)
    assert (header.shnum, header.shstrndx, header.phnum) == (
        original[0].shnum, original[0].shstrndx, original[0].phnum
    )  # fmt: skip
    assert sections[1:] == original[1][1:] and segments == original[2]
    # every caller: the DWARF sections (which took the name table's index from sh_info),
    # the image and its CFI
    assert read_section_headers(str(extended))[1:] == read_section_headers(str(program_pie))[1:]
    assert ElfSections(str(extended)).has(".debug_info")
    image = ElfImage.load(str(extended))
    assert image.segments == ElfImage.load(str(program_pie)).segments
    assert image.find_symbol("main") is not None
    table = CfiTable.load(image)
    assert table is not None and table.section_of(image.find_symbol("main").address) == ".eh_frame"  # type: ignore[union-attr]


def test_classify() -> None:
    assert classify(b"") is ElfClass.NOT_ELF
    assert classify(b"#!/bin/sh\n" + bytes(54)) is ElfClass.NOT_ELF
    assert classify(b"\x7fELF\x01\x01\x01" + bytes(57)) is ElfClass.ELF32
    assert classify(b"\x7fELF\x02\x01\x01" + bytes(57)) is ElfClass.ELF64_LSB
    assert classify(b"\x7fELF\x02\x02\x01" + bytes(57)) is ElfClass.ELF64_MSB
    assert classify(b"\x7fELF\x03\x01\x01" + bytes(57)) is ElfClass.UNKNOWN


def test_tables_past_the_end_are_malformed(program_pie: Path, tmp_path: Path) -> None:
    data = program_pie.read_bytes()
    cut = tmp_path / "cut"
    cut.write_bytes(data[: struct.unpack_from("<Q", data, 0x28)[0] + 10])  # into the section table
    with pytest.raises(MalformedElf):
        _parse(cut)
    with pytest.raises(TargetError, match="malformed ELF file"):
        read_section_headers(str(cut))
    with pytest.raises(TargetError, match="malformed ELF file"):
        ElfImage.load(str(cut))


@pytest.mark.parametrize(
    ("ident", "image_error", "image_words", "dwarf_error", "dwarf_words"),
    [
        (b"#!/bin/sh", TargetError, "not an ELF file", TargetError, "not an ELF file"),
        (b"\x7fELF\x01\x01\x01", Unsupported, "32-bit ELF files are not supported",
         Unsupported, "only 64-bit little-endian ELF files carry usable DWARF"),
        (b"\x7fELF\x05\x01\x01", TargetError, "unknown ELF class or byte order",
         Unsupported, "only 64-bit little-endian ELF files carry usable DWARF"),
    ],
)  # fmt: skip
def test_each_caller_keeps_its_words(
    ident: bytes, image_error: type[Exception], image_words: str, dwarf_error: type[Exception],
    dwarf_words: str, tmp_path: Path,
) -> None:  # fmt: skip
    path = tmp_path / "odd"
    path.write_bytes(ident + bytes(64))
    with pytest.raises(image_error, match=image_words):
        ElfImage.load(str(path))
    with pytest.raises(dwarf_error, match=dwarf_words):
        read_section_headers(str(path))


def test_cfi_refuses_a_big_endian_image(program_pie: Path, tmp_path: Path) -> None:
    """The image reader takes big-endian ELF64 (its symbols are read in that order); the
    CFI reader, which reads x86-64 little-endian frames only, still says it is not for it."""
    data = bytearray(program_pie.read_bytes()[:64])
    data[5] = 2  # ELFDATA2MSB, with no tables: an empty big-endian image
    data[0x20:0x28] = bytes(8)  # e_phoff
    data[0x28:0x30] = bytes(8)  # e_shoff
    path = tmp_path / "big"
    path.write_bytes(bytes(data))
    with pytest.raises(TargetError, match="not a little-endian ELF64 file"):
        CfiTable.load(ElfImage.load(str(path)))
