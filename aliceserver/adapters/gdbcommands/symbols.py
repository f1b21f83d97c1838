"""gdb's `info address SYMBOL` and `info symbol ADDR` (printcmd.c) and `info scope LOCATION`
(symtab.c): where a symbol is stored and what is at an address, in gdb's words."""

from __future__ import annotations

import os
from collections.abc import Callable

from aliceserver.adapters.gdbcommands.dwarf_ops import describe_location
from aliceserver.adapters.gdbcommands.examine import address_of
from aliceserver.adapters.gdbcommands.quoting import unquoted
from aliceserver.adapters.gdbcommands.selection import Selection, Shown, Write, same_address
from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.model import (
    DebugSymbolEntry,
    FunctionDeclaration,
    SourcePosition,
    SymbolDomain,
    SymbolSearchQuery,
)
from aliceserver.debuggers.storage import StorageKind, SymbolStorage
from aliceserver.errors import ProtocolError
from aliceserver.regexes import compiled_later

_FILE_LINE = compiled_later(r"^(?:(?P<file>.+):)?(?P<line>\d+)$")


def info_address(
    debugger: IDebugger, where: Selection, argument: str, write: Write, shown: Shown = same_address
) -> None:
    name = argument.strip()
    if not name:
        raise ProtocolError("Argument required.")
    storage = debugger.symbol_storage(name, where.thread_id, where.level)
    if storage.kind is StorageKind.NO_DEBUG_INFO:
        write(f'Symbol "{name}" is at {shown(storage.address or 0):#x} in a file compiled without debugging.\n')
        return
    words = {
        StorageKind.FUNCTION: f"a function at address {shown(storage.address or 0):#x}",
        StorageKind.STATIC: f"static storage at address {shown(storage.address or 0):#x}",
        StorageKind.OPTIMIZED_OUT: "optimized out",
        StorageKind.CONSTANT: "constant",
    }.get(storage.kind)
    write(f'Symbol "{storage.name}" is {words if words is not None else _computed(storage, shown)}.\n')


def info_symbol(debugger: IDebugger, where: Selection, argument: str, write: Write, *, started: bool) -> None:
    """gdb's `info symbol ADDR` (printcmd.c): the symbol and section holding an address,
    naming the image once more than one is loaded (`started`: not before `run`, where the
    modules seen are a symbol probe's)."""
    expression = argument.strip()
    if not expression:
        raise ProtocolError("Argument required (address).")
    found = debugger.section_symbol(address_of(debugger, where, expression))
    if found is None:
        write(f"No symbol matches {expression}.\n")
        return
    place = f"{found.name} + {found.offset}" if found.offset else found.name
    image = f" of {found.module}" if found.several_modules and started else ""
    write(f"{place} in section {found.section}{image}\n")


def info_scope(debugger: IDebugger, argument: str, write: Write, shown: Shown = same_address,
               normalize: Callable[[str], str] = str) -> None:
    """`normalize`: the engine's spec for a location in gdb's syntax (a bare line: the
    current file's)."""
    spec = argument.strip()
    if not spec:
        raise ProtocolError("requires an argument (function, line or *addr) to define a scope")
    places = debugger.resolve_location(normalize(spec))
    if not places:
        match = _FILE_LINE().match(spec)
        if match is not None and match["file"]:
            raise ProtocolError(f'No line {match["line"]} in file "{match["file"]}".')
        if spec.isdigit():  # a bare line: the current file's
            raise ProtocolError(f"No line {spec} in the current file.")
        raise ProtocolError(f'Function "{unquoted(spec)}" not defined.')
    symbols = debugger.scope_storage(places[0].address)
    if not symbols:
        write(f"Scope for {spec} contains no locals or arguments.\n")  # gdb 13 tracepoint.c
        return
    write(f"Scope for {spec}:\n")
    for storage in symbols:
        write(f"Symbol {storage.name} is {_scope_words(storage, shown)}")


def _scope_words(storage: SymbolStorage, shown: Shown) -> str:
    """What follows `Symbol NAME is ` in `info scope`, to the end of its line(s)."""
    if storage.kind is StorageKind.OPTIMIZED_OUT:
        return "optimized out.\n"
    if storage.kind is StorageKind.STATIC:
        words = f"in static storage at address {shown(storage.address or 0):#x}"
    elif storage.kind is StorageKind.FUNCTION:
        words = f"a function at address {shown(storage.address or 0):#x}"
    elif storage.kind is StorageKind.CONSTANT:
        words = f"constant {storage.value}"
    else:
        words = _computed(storage, shown)
    return f"{words}, length {storage.size}.\n"


def _computed(storage: SymbolStorage, shown: Shown) -> str:
    """A DWARF expression or location list as gdb's describe_location writes it."""
    if storage.kind is StorageKind.COMPUTED:
        return describe_location(storage.expression, storage.frame_base)
    lines = ["multi-location:\n"]
    for entry in storage.entries:
        if entry.base is not None:
            lines.append(f"  Base address {entry.base:#x}")
        lines.append(f"  Range {shown(entry.low):#x}-{shown(entry.high):#x}: ")
        lines.append(describe_location(entry.expression, storage.frame_base) + "\n")
    return "".join(lines)


def rbreak_functions(
    debugger: IDebugger, argument: str, program_only: bool | None = None
) -> list[FunctionDeclaration]:
    """The breakpoints gdb 13's `rbreak [FILE:]REGEX` sets (symtab.c rbreak_command), in its
    order: `info functions`' search (global_symbol_searcher), the functions with debug info
    sorted by file, global before static, name, then those without it by address (none
    with a FILE). Each one's `name` is the location broken at, `FULLNAME:NAME` (that
    file's units alone: a static function of a header included twice is one breakpoint at
    both copies) or `'NAME'`, and `declaration` the line printed after the breakpoint's
    (`address` is 0 for one with debug info: its breakpoint finds it). `program_only`:
    before `run` (gdb has read the program's symbols alone); None: unless a process other
    than one held for the program's symbols was started."""
    text, file = argument.strip(), None
    colon = text.find(":")
    if colon >= 0 and text[colon + 1 : colon + 2] != ":":  # the first colon, not `::`
        file, text = text[:colon].rstrip(), text[colon + 1 :].strip()
    if program_only is None:
        process = debugger.process  # pid 0: the program read from its file before `run`
        program_only = process is None or not process.pid
    query = SymbolSearchQuery(
        SymbolDomain.FUNCTIONS,
        name_regex=text or None,
        include_nondebug=file is None,
        program_only=program_only,
    )
    found = debugger.search_symbols(query)
    debug = [e for e in found.debug if file is None or _file_matches(e.file, e.fullname, file)]
    listed = []
    for e in debug:
        where = SourcePosition(e.file, e.line)
        location = _location(e)
        listed.append(FunctionDeclaration(location, 0, e.description, where))
    for symbol in found.nondebug:
        shown = f"<function, no debug info> {symbol.name};"
        listed.append(FunctionDeclaration(f"'{symbol.name}'", symbol.address, shown, None))
    return listed


def _location(entry: DebugSymbolEntry) -> str:
    """`FULLNAME:NAME`, as gdb's rbreak breaks at `FULLNAME:'LINKAGE-NAME'`: a C++ function
    by its parameters (that overload alone, also where the regex found only it); the file
    as the debug info names it where its unit's directory is relative (gdb's full name is
    then no path to the file)."""
    name = entry.search_name or entry.name
    full = entry.fullname
    return f"{full if full.startswith('/') else os.path.normpath(entry.file)}:{name}"


def _file_matches(shown: str, fullname: str, wanted: str) -> bool:
    """gdb's test of a symbol's file against rbreak's FILE: the name its symbol table
    shows, else (the same base name) its full name, ends with FILE at a directory."""
    if _ends_with(shown, wanted):
        return True
    same_base = _ends_with(shown.rsplit("/", 1)[-1], wanted.rsplit("/", 1)[-1])
    return same_base and _ends_with(fullname, wanted)


def _ends_with(name: str, wanted: str) -> bool:
    """gdb's compare_filenames_for_search: `wanted` the whole of `name` or its last
    components (an absolute `wanted` only the whole)."""
    if not name.endswith(wanted):
        return False
    if len(name) == len(wanted):
        return True
    return not wanted.startswith("/") and name[-len(wanted) - 1] == "/"
