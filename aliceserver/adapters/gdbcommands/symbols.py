"""gdb's `info address SYMBOL` and `info symbol ADDR` (printcmd.c) and `info scope LOCATION`
(symtab.c): where a symbol is stored and what is at an address, in gdb's words."""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from aliceserver.adapters.gdbcommands.dwarf_ops import describe_location
from aliceserver.adapters.gdbcommands.examine import address_of
from aliceserver.adapters.gdbcommands.quoting import unquoted
from aliceserver.adapters.gdbcommands.selection import Selection, Shown, Write, same_address
from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.model import FunctionDeclaration
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


def rbreak_functions(debugger: IDebugger, argument: str) -> list[FunctionDeclaration]:
    """The functions gdb's `rbreak [FILE:]REGEX` sets breakpoints on, in its order."""
    text = argument.strip()
    file = None
    colon = re.search(r"(?<!:):(?!:)", text)
    if colon is not None:
        file, text = text[: colon.start()].strip(), text[colon.end() :].strip()
    found = debugger.function_declarations(text)
    if file is None:
        return found
    parts = [p for p in os.path.normpath(file).split("/") if p not in ("", ".")]
    return [f for f in found if f.source is not None and f.source.path.split("/")[-len(parts) :] == parts]
