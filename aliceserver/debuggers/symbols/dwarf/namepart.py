"""A binary's index's name part (what `break NAME` looks a library up by), and the key and
identity its index is cached under.

Apart from units.py (and index.py) so that a child process building libraries' indexes
ahead (indexchild.py) imports only this, the ELF reader and the cache: units.py's imports
(pyelftools' tables, the line program reader) took 20 ms of that child's ~60 ms start.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.funclist import name_starts, pack_functions
from aliceserver.debuggers.symbols.dwarf.names import Demangler, natural_name
from aliceserver.debuggers.symbols.dwarf.sections import FileIdentity
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.debuggers.symbols.symtab import packed_addresses

Progress = Callable[[str, float | None], None]
# (its file's realpath, mtime, size), its DWARF file's, its build id
Identity = tuple[tuple[str, int, int], tuple[str, int, int], str | None]


def build_name_part(
    image: ElfImage, progress: Progress | None = None, start: float = 0.0
) -> dict[str, Any]:
    """What `break NAME` looks a library up by: demangled function names, the function
    list (funclist.py, with where its names start) and the ELF symbol table (with its address
    index's addresses) (the image's: parsing it costs more than
    reading all the rest from the cache). No DWARF is read. Its progress starts at `start`:
    0 when it is the whole job (a client's bar must not open at 80%)."""
    if progress is not None:
        progress(f"demangling names of {os.path.basename(image.path)}", start)
    demangler = Demangler()
    demangled = {}
    fast = image.packed_name_part()  # (from the section bytes: symtab_pack.py)
    if fast is not None:
        symbols, (functions, mangled) = fast
    else:
        listed = image.function_symbols()  # plain tuples: an ElfSymbol each costs more
        functions = pack_functions(listed)
        mangled = [name for name, _address, _size in listed if name.startswith(("_Z", "_R"))]
        symbols = image.packed_symbols()
    for symbol_name in mangled:
        # a PLT stub's `_Znwm@plt`: gdb's minimal symbol `operator new(unsigned long)@plt`
        stub = "@" in symbol_name
        text = natural_name(symbol_name, demangler) if stub else demangler.demangle(symbol_name)
        if text != symbol_name:
            demangled[symbol_name] = text
    return {"demangled": demangled, "functions": functions, "function_starts": name_starts(functions),
            "symbols": symbols, "symbol_addresses": packed_addresses(symbols)}  # fmt: skip


def index_key(build_id: str | None, main: str, dwarf: str) -> tuple[str, Identity]:
    """(cache key, identity) of the index of the binary at `main` whose DWARF is at `dwarf`
    (OSError: one of them cannot be looked at)."""
    ident_main = FileIdentity.of(main)
    ident_dwarf = FileIdentity.of(dwarf) if dwarf != main else ident_main
    identity = (_tuple(ident_main), _tuple(ident_dwarf), build_id)
    return IndexCache.key_for(build_id, main, ident_main.mtime_ns, ident_main.size), identity


def _tuple(identity: FileIdentity) -> tuple[str, int, int]:
    return (identity.path, identity.mtime_ns, identity.size)
