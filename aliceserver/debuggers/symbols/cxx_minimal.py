"""C++ functions without debug information, found by the names users type.

gdb's `break NAME` matches every module's minimal (ELF) symbols by their demangled names,
wild: `break flush` in a program linked with libstdc++ (no debug information there) is set
at `std::basic_ostream<char, std::char_traits<char> >::flush()`, its wchar_t twin, the
`std::flush<char, ...>(...)` manipulators and the `...::flush()@plt` stubs of the program
and of libstdc++ itself; `break write` at libstdc++'s two `write` methods beside libc's.
A module's names are not all demangled for that (libstdc++'s 6,000: tens of ms): a C++
function's mangled name holds its own name as `<length><name>` (`_ZNSo5flushEv`), so only
the symbols whose names hold that text are demangled and compared.
"""

from __future__ import annotations

from aliceserver.debuggers.symbols.dwarf.inlines import query_leaf
from aliceserver.debuggers.symbols.dwarf.names import (
    Demangler,
    canonical,
    lookup_keys,
    normalize_query,
    same_params,
    split_qualified,
    strip_signature,
    verbose,
)
from aliceserver.debuggers.symbols.elf import ElfImage, ElfSymbol

_PLT = "@plt"


def cxx_functions_named(image: ElfImage, query: str, demangler: Demangler) -> list[tuple[ElfSymbol, str]]:
    """The image's C++ function symbols (PLT stubs too) that `break QUERY` finds as gdb
    does, each with gdb's name for it (demangled with the standard names written out, a
    stub's `@plt` kept). An operator's or conversion's name is not searched (no text of
    its own in the mangled name): none."""
    leaf = query_leaf(query)
    if not leaf.isidentifier() or not image.has_mangled_names():  # (a C module: none)
        return []
    key, params = normalize_query(query)
    wanted = canonical(key)
    qualified_query = len(split_qualified(key)) > 1
    found: list[tuple[ElfSymbol, str]] = []
    for symbol in image.functions_containing(f"{len(leaf.encode())}{leaf}"):
        if not symbol.name.startswith("_Z"):
            continue
        stub = symbol.name.endswith(_PLT)
        if stub and params is not None:
            continue  # gdb compares the stub's `()@plt` with the query's `()`
        base = symbol.name.removesuffix(_PLT)
        if "." in base:
            continue  # a clone (`.cold`, `.isra.0`): gdb sets none at one by its function's name
        demangled = demangler.demangle(base)
        if demangled == base:
            continue
        text = verbose(demangled)  # as gdb demangles minimal symbols (DMGL_VERBOSE)
        if wanted not in lookup_keys(base, text):
            continue
        name, own_params = strip_signature(text)
        if params is not None and (own_params is None or not same_params(own_params, params)):
            continue
        if qualified_query and not text.startswith(name):
            # gdb finds a function whose demangled name begins with its return type (a
            # template's: `std::basic_ostream<...>& std::flush<char, ...>(...)`) by a
            # name without scope alone (`flush`; `std::flush` is "not defined")
            continue
        found.append((symbol, text + _PLT if stub else text))
    return found
