"""The GNU build id of an ELF image, found through its program headers (PT_NOTE), either in
a file (by file offset) or in a process image (by address: a core's mapped first page)."""

from __future__ import annotations

import struct
from collections.abc import Callable

from aliceserver.debuggers.core.records import NT_GNU_BUILD_ID, iter_notes
from aliceserver.errors import AliceError

_ELF_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")
_PROGRAM_HEADER = struct.Struct("<IIQQQQQQ")
PT_LOAD, PT_NOTE = 1, 4
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
        header = read(base, _ELF_HEADER.size)
        if len(header) < _ELF_HEADER.size or header[:4] != b"\x7fELF" or header[4] != 2:
            return None
        fields = _ELF_HEADER.unpack(header)
        phoff, phentsize, phnum = fields[5], fields[9], fields[10]
        if phentsize != _PROGRAM_HEADER.size or phnum > _MAX_PHNUM:
            return None
        table = read(base + phoff, phentsize * phnum)
        headers = [
            _PROGRAM_HEADER.unpack_from(table, i * phentsize)
            for i in range(len(table) // phentsize)
        ]
        loads = [vaddr - offset for kind, _f, offset, vaddr, *_rest in headers if kind == PT_LOAD]
        first_load = min(loads, default=0)
        for kind, _flags, offset, vaddr, _paddr, filesz, _memsz, _align in headers:
            if kind != PT_NOTE or filesz > _MAX_NOTES:
                continue
            where = base + (vaddr - first_load if in_memory else offset)
            for note in iter_notes(read(where, filesz)):
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
