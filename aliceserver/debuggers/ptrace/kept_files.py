"""The bytes of a library kept from a run that ended (images.py _keep_libraries), read from
its file: gdb 13 keeps such a library's objfile and reads its sections' contents after the
process is gone (`x/i` on one of its functions, a function value's bytes), where the symbol
probe has nothing mapped. Zeros past a segment's file part, as the loader maps them."""

from __future__ import annotations

from aliceserver.debuggers.symbols.elf import PT_LOAD, ElfImage


def file_bytes(image: ElfImage, link_address: int, size: int) -> bytes | None:
    """`size` bytes at `link_address` of the file's loadable segments; None where they are
    not all inside one segment."""
    for segment in image.segments:
        if segment.type != PT_LOAD or not segment.vaddr <= link_address < segment.vaddr + segment.memsz:
            continue
        if link_address + size > segment.vaddr + segment.memsz:
            return None
        start = link_address - segment.vaddr
        held = max(0, min(size, segment.filesz - start))
        data = b""
        if held:
            try:
                with open(image.path, "rb") as file:
                    file.seek(segment.offset + start)
                    data = file.read(held)
            except OSError:
                return None
            if len(data) != held:
                return None
        return data + bytes(size - len(data))
    return None
