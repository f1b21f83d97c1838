"""Names only a separate debug file's symbol table holds (gdb's minimal symbols of it).

A stripped library keeps in .dynsym its exported names alone; gdb 13 reads the symbol table
of its separate debug file too (libc6-dbg's: `__restore_rt`, `__GI_raise`, the local
functions), so `print`, `break` and `info address` find those by name. The address lookups
read it already (symbolic.py); these are the lookups by name, asked only when the modules'
own tables have no such name (loading a debug file's table costs ~10 ms).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.model import Module
    from aliceserver.debuggers.source.sourcesymbols import SourceSymbols
    from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
    from aliceserver.debuggers.symbols.elf import ElfSymbol


def debug_file_symbols(
    source: SourceSymbols, name: str, functions: bool = True, program_only: bool = False
) -> list[int]:
    """Runtime addresses of the symbols called `name` in the modules' separate debug
    files, in load order (one per module); `functions`: function symbols only;
    `program_only`: the main program's alone (before `run`)."""
    found = []
    for module in source.symbols.modules():
        if program_only and not module.is_main:
            continue
        symbol = debug_file_symbol(source, module, name)
        if symbol is not None and (symbol.kind == "func" or not functions):
            found.append(symbol.address + module.base)
    return found


def debug_file_symbol(source: SourceSymbols, module: Module, name: str) -> ElfSymbol | None:
    """The symbol called `name` in the module's separate debug file (None: it has none)."""
    own = source.symbols.image_of(module.path)
    info = source.debug_info(module)
    if info is not None and info.debug_file != module.path and not _may_name(info.sections, name):
        return None  # (its table is not loaded: libc6-dbg's is 6.7 MB of memory, 25 ms)
    image = source.debug_image(module)
    if image is None or image is own:
        return None
    return image.find_symbol(name)


def _may_name(sections: ElfSections, name: str) -> bool:
    """Whether the file's .strtab may hold `name`, whole or with a version (`name@GLIBC_2.2.5`):
    a byte search of a few hundred KB, where reading the symbol table is megabytes. Only its
    end is looked for: a linker shares one string's tail with another (ld.so's `_start` is
    the end of `_dl_start`)."""
    try:
        strings = sections.get(".strtab")
    except TargetError:
        return True  # unreadable here: the table's own reading decides
    needle = name.encode("utf-8", "surrogateescape")
    return needle + b"\0" in strings or needle + b"@" in strings
