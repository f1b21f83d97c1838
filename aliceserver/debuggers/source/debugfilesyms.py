"""Names only a separate debug file's symbol table holds (gdb's minimal symbols of it).

A stripped library keeps in .dynsym its exported names alone; gdb 13 reads the symbol table
of its separate debug file too (libc6-dbg's: `__restore_rt`, `__GI_raise`, the local
functions), so `print`, `break` and `info address` find those by name. The address lookups
read it already (symbolic.py); these are the lookups by name, asked only when the modules'
own tables have no such name (loading a debug file's table costs ~10 ms).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aliceserver.debuggers.model import Module
    from aliceserver.debuggers.source.sourcesymbols import SourceSymbols
    from aliceserver.debuggers.symbols.elf import ElfSymbol


def debug_file_symbols(source: SourceSymbols, name: str, functions: bool = True) -> list[int]:
    """Runtime addresses of the symbols called `name` in the modules' separate debug
    files, in load order (one per module); `functions`: function symbols only."""
    found = []
    for module in source.symbols.modules():
        symbol = debug_file_symbol(source, module, name)
        if symbol is not None and (symbol.kind == "func" or not functions):
            found.append(symbol.address + module.base)
    return found


def debug_file_symbol(source: SourceSymbols, module: Module, name: str) -> ElfSymbol | None:
    """The symbol called `name` in the module's separate debug file (None: it has none)."""
    own = source.symbols.image_of(module.path)
    image = source.debug_image(module)
    if image is None or image is own:
        return None
    return image.find_symbol(name)
