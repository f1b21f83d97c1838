"""`break NAME` on a GNU indirect function (STT_GNU_IFUNC: libc's strlen and memset), as
gdb 13's linespec.c minsym_found sets it: at the function the ifunc resolved to where
elfread.c can tell (elf_gnu_ifunc_resolve_by_got: a module's `NAME@got.plt` slot already
holds the start of a function), else at the resolver's entry, a place of a minimal symbol
only: shown without a line (`<strlen_ifunc>`), and a stop there shows the innermost
inlined call (`strlen_ifunc_selector`), as a location without a symbol skips none."""

from __future__ import annotations

import logging
import struct
from typing import TYPE_CHECKING

from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.debuggers.symbols.linkmap import ReadMemory
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.debuggers.source.sourcesymbols import SourceSymbols

log = logging.getLogger(__name__)

_SYMBOL = struct.Struct("<IBBHQQ")  # Elf64_Sym
_STT_GNU_IFUNC = 10


class Ifuncs:
    """Which function symbols of the modules are ifuncs (their .dynsym, read once each)."""

    def __init__(self) -> None:
        self._by_path: dict[str, tuple[ElfImage, frozenset[int]]] = {}

    def is_ifunc(self, image: ElfImage, link: int) -> bool:
        known = self._by_path.get(image.path)
        if known is None or known[0] is not image:
            known = self._by_path[image.path] = (image, _ifunc_addresses(image.path))
        return link in known[1]


def _ifunc_addresses(path: str) -> frozenset[int]:
    """The link-time addresses of the defined STT_GNU_IFUNC symbols of .dynsym (where the
    dynamic linker finds them: a library's own calls go through IRELATIVE slots)."""
    try:
        table = ElfSections(path).get(".dynsym")
    except (AliceError, OSError) as error:
        log.debug("no dynamic symbols in %s: %s", path, error)
        return frozenset()
    end = len(table) - len(table) % _SYMBOL.size
    return frozenset(value for _name, info, _other, section, value, _size in _SYMBOL.iter_unpack(table[:end])
                     if info & 0xF == _STT_GNU_IFUNC and section != 0)  # fmt: skip


def resolved_target(source: SourceSymbols, name: str, read: ReadMemory | None) -> int | None:
    """Where ifunc `name` resolved to, by the first module's `NAME@got.plt` slot in load
    order that holds the start of a function symbol (its own table's or its debug file's)
    other than a PLT stub (a lazy slot not bound yet points back into the PLT)."""
    if read is None:
        return None
    for module in source.symbols.modules():
        image = source.symbols.image_of(module.path)
        slot = image.find_symbol(f"{name}@got.plt") if image is not None else None
        if slot is None or slot.size != 8:
            continue
        try:
            target = int.from_bytes(read(slot.address + module.base, 8), "little")
        except (AliceError, OSError) as error:
            log.debug("%s@got.plt unreadable: %s", name, error)
            continue
        if _function_starts_at(source, target):
            return target
    return None


def _function_starts_at(source: SourceSymbols, address: int) -> bool:
    module = source.symbols.module_at(address)
    image = source.symbols.image_of(module.path) if module is not None else None
    if module is None or image is None:
        return False
    hit = image.symbol_at(address - module.base)
    if hit is None or hit[1] != 0:
        found = source.debug_symbol(address)
        hit = (found[1], found[2]) if found is not None else None
    return (
        hit is not None
        and hit[1] == 0
        and hit[0].kind == "func"
        and not hit[0].name.endswith("@plt")
    )
