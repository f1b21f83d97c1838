"""gdb's `info functions`, `info variables` and `info types` (symtab.c, symtab_symbol_info):
their options and their listing, per file, then the symbols without debug info."""

from __future__ import annotations

from aliceserver.adapters.gdbcommands.selection import Shown, Write, same_address
from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.model import SymbolDomain, SymbolSearchQuery
from aliceserver.errors import ProtocolError

_CLASS_NAMES = {SymbolDomain.FUNCTIONS: "function", SymbolDomain.VARIABLES: "variable", SymbolDomain.TYPES: "type"}


def parse_info_symbols(domain: SymbolDomain, text: str, *, program_only: bool) -> tuple[SymbolSearchQuery, bool]:
    """(query, quiet) of `info functions [-q] [-n] [-t TYPEREGEXP] [--] [NAMEREGEXP]`
    (`info types` takes only -q). As gdb's option parser, a word it does not know as an
    option begins the regexp."""
    quiet = exclude_nondebug = False
    type_regex: str | None = None
    rest = text.strip()
    while rest.startswith("-"):
        word, _, after = rest.partition(" ")
        if word == "--":
            rest = after.strip()
            break
        if word == "-q":
            quiet = True
        elif word == "-n" and domain is not SymbolDomain.TYPES:
            exclude_nondebug = True
        elif word == "-t" and domain is not SymbolDomain.TYPES:
            value, _, after = after.strip().partition(" ")
            if not value:
                raise ProtocolError("-t requires an argument")
            type_regex = value
        else:
            break
        rest = after.strip()
    query = SymbolSearchQuery(
        domain,
        name_regex=rest or None,
        type_regex=type_regex,
        include_nondebug=domain is not SymbolDomain.TYPES and not exclude_nondebug,
        program_only=program_only,
    )
    return query, quiet


def _heading(query: SymbolSearchQuery) -> str:
    kind = _CLASS_NAMES[query.domain]
    name, types = query.name_regex, query.type_regex
    if name is not None and types is None:
        return f'All {kind}s matching regular expression "{name}":\n'
    if name is not None:
        return (f'All {kind}s matching regular expression "{name}" with type matching '
                f'regular expression "{types}":\n')  # fmt: skip
    if types is None:
        return f"All defined {kind}s:\n"
    return f'All defined {kind}s with type matching regular expression "{types}" :\n'


def info_symbols(
    debugger: IDebugger, query: SymbolSearchQuery, quiet: bool, write: Write, shown: Shown = same_address
) -> None:
    found = debugger.search_symbols(query)
    if not quiet:
        write(_heading(query))
    last_file: str | None = None
    for entry in found.debug:
        if entry.file != last_file:
            write(f"\nFile {entry.file}:\n")
            last_file = entry.file
        line = f"{entry.line}:" if entry.line else ""
        write(f"{line}\t{entry.description}\n")
    if found.nondebug and not quiet:
        write("\nNon-debugging symbols:\n")
    for symbol in found.nondebug:
        write(f"0x{shown(symbol.address):016x}  {symbol.name}\n")
