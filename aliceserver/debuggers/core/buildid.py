"""The GNU build id of an ELF image, found through its program headers (PT_NOTE), either in
a file (by file offset) or in a process image (by address: a core's mapped first page)."""

from __future__ import annotations

import struct
from collections.abc import Callable

from aliceserver.debuggers.symbols.elfheaders import (
    EHDR_SIZE,
    NT_GNU_BUILD_ID,
    PHDR,
    PT_LOAD,
    PT_NOTE,
    ElfClass,
    classify,
    iter_notes,
    parse_header,
    parse_segments,
)
from aliceserver.errors import AliceError

_MAX_PHNUM = 512
_MAX_NOTES = 1 << 16

# Reads `size` bytes at a position (an address or a file offset); raises OSError or an
# AliceError where it cannot.
Reader = Callable[[int, int], bytes]


def build_id(read: Reader, base: int, *, in_memory: bool) -> str | None:
    """The build id (hex) of the ELF image whose header is at `base`, or None when it has
    none or cannot be read. `in_memory` finds notes by p_vaddr (relative to the image's
    lowest PT_LOAD) rather than by p_offset."""
    try:
        head = read(base, EHDR_SIZE)
        if classify(head) not in (ElfClass.ELF64_LSB, ElfClass.ELF64_MSB):
            return None
        header = parse_header(head, 0)  # its tables are read through `read`, not read_at
        if header.phentsize != PHDR.size or header.phnum > _MAX_PHNUM:
            return None
        table = read(base + header.phoff, header.phentsize * header.phnum)
        segments = parse_segments(table, header.phentsize, header.little_endian)
        loads = [s.vaddr - s.offset for s in segments if s.type == PT_LOAD]
        first_load = min(loads, default=0)
        for segment in segments:
            if segment.type != PT_NOTE or segment.filesz > _MAX_NOTES:
                continue
            where = base + (segment.vaddr - first_load if in_memory else segment.offset)
            notes = read(where, segment.filesz)
            for note in iter_notes(notes, little_endian=header.little_endian):
                if note.type == NT_GNU_BUILD_ID and note.owner == "GNU":
                    return note.desc.hex()
    except (OSError, ValueError, struct.error, AliceError):  # AliceError: an unreadable address
        return None
    return None


def file_build_id(path: str) -> str | None:
    """The build id of the ELF file at `path`, None when it has none or is unreadable."""
    try:
        with open(path, "rb") as stream:

            def read(offset: int, size: int) -> bytes:
                stream.seek(offset)
                return stream.read(size)

            return build_id(read, 0, in_memory=False)
    except OSError:
        return None
