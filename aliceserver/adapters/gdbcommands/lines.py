"""gdb's `info line` (source.c's info_line_command): where a line's code starts and ends.

`info line FUNCTION` is the line of the function's entry (a list-mode linespec: before the
prologue), `info line N` / `FILE:N` the row where line N starts (or "contains no code" when
its code is the next line's), `info line *ADDRESS` the row holding the address; a bare
`info line` goes on after the line shown last. `x/i` then starts at the line's code.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from aliceserver.adapters.gdbcommands.examine import address_label, address_of
from aliceserver.adapters.gdbcommands.quoting import unquoted
from aliceserver.adapters.gdbcommands.selection import (
    CommandMemory,
    Selection,
    Shown,
    Write,
    same_address,
)
from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.model import LineRange
from aliceserver.errors import AliceError, ProtocolError
from aliceserver.regexes import compiled_later

_FILE_LINE = compiled_later(r"^(?:(?P<file>.+):)?(?P<line>\d+)$")
Annotate = Callable[[str, int, int], None]


def info_line(
    debugger: IDebugger, where: Selection, memory: CommandMemory, argument: str, write: Write,
    shown: Shown = same_address, annotate: Annotate | None = None,
) -> None:
    """Run `info line ARGUMENT`; `where` gives the default file when nothing was listed,
    `shown` the address printed for a runtime address, `annotate` (gdb's `set annotate 1`)
    the annotation of a line (file, line, start) for a single place's."""
    text = argument.strip()
    if not text:
        following = memory.info_line_next
        listed = following[1] if following is not None and following[0] is memory.listed else memory.listed
        listed = listed or _frame_line(debugger, where)
        if listed is None:
            write("No line number information available.\n")
            return
        _one_line(debugger, memory, listed[0], listed[1], debugger.line_start(listed[0], listed[1]), write, shown,
                  annotate)
        return
    if text.startswith("*"):
        address = address_of(debugger, where, text[1:].strip())
        found = debugger.line_range(address)
        if found is None and address == 0:  # gdb's info_line_command names no address 0
            write("No line number information available.\n")
            return
        if found is None:
            label = address_label(debugger, address)
            write(f"No line number information available for address {shown(address):#x}{label}\n")
            return
        _one_line(debugger, memory, found.source.path, found.source.line, found, write, shown, annotate)
        return
    match = _FILE_LINE().match(text)
    if match is not None:
        line = int(match["line"])
        file = match["file"] or default_file(debugger, where, memory)
        if file is None:
            raise ProtocolError("No symbol table is loaded.  Use the \"file\" command.")
        found = debugger.line_start(file, line)
        if found is None:
            name = debugger.source_name(file) if match["file"] is None else match["file"]
            write(f'Line number {line} is out of range for "{name}".\n')
            return
        _one_line(debugger, memory, found.source.path, line, found, write, shown, annotate)
        return
    places = debugger.resolve_location(text)
    if not places:
        raise ProtocolError(f'Function "{unquoted(text)}" not defined.')
    seen = set()
    for place in places:
        entry = _entry_of(debugger, place.address)
        found = debugger.line_range(entry)
        if entry in seen:
            continue
        seen.add(entry)
        if found is None:  # a function without line info (a debug file's symbol only)
            label = address_label(debugger, entry)
            write(f"No line number information available for address {shown(entry):#x}{label}\n")
            continue
        # list mode: the entry's own row, the function's `{` line
        _one_line(debugger, memory, found.source.path, found.source.line, found, write, shown,
                  annotate if len(places) == 1 else None)


def _one_line(
    debugger: IDebugger, memory: CommandMemory, path: str, line: int, found: LineRange | None, write: Write,
    shown: Shown, annotate: Annotate | None = None,
) -> None:
    name = debugger.source_name(path)
    if found is None:
        write(f'Line number {line} is out of range for "{name}".\n')
        return
    start, end = shown(found.start), shown(found.end)
    at, to = address_label(debugger, found.start), address_label(debugger, found.end)
    if found.source.line != line:  # its code is the next line's: gdb's find_line_pc_range
        write(f'Line {line} of "{name}" is at address {start:#x}{at} but contains no code.\n')
    else:
        write(f'Line {line} of "{name}" starts at address {start:#x}{at} and ends at {end:#x}{to}.\n')
    set_next_address(debugger, memory, start)  # `x/i` shows this line's code (before run: at its link-time address)
    if memory.listed is not None:  # a bare `info line` does the next line (of the current file)
        memory.info_line_next = (memory.listed, (memory.listed[0], line + 1))
    if annotate is not None:
        annotate(path, line, start)


def _entry_of(debugger: IDebugger, address: int) -> int:
    """The entry of the function holding `address` (a function's breakpoint address)."""
    try:
        symbol = debugger.lookup_address(address)
    except AliceError:
        return address
    return address - symbol.offset if symbol.name else address


def _frame_line(debugger: IDebugger, where: Selection) -> tuple[str, int] | None:
    if where.thread_id is None:
        return None
    try:
        frames = debugger.stack_trace(where.thread_id, where.level, 1)
    except AliceError:
        return None
    source = frames[0].source if frames else None
    return None if source is None else (source.path, source.line)


def list_mode_line(debugger: IDebugger, address: int) -> tuple[str, int] | None:
    """The (file, line) a list-mode linespec gives the function holding `address`: its
    entry's row, the function's `{` line; None without line information."""
    found = debugger.line_range(_entry_of(debugger, address))
    return None if found is None else (found.source.path, found.source.line)


def default_file(debugger: IDebugger, where: Selection, memory: CommandMemory) -> str | None:
    if memory.listed is not None:
        return memory.listed[0]
    framed = _frame_line(debugger, where)
    if framed is not None:
        return framed[0]
    places = [p for p in debugger.resolve_location("main") if p.source is not None]
    return places[0].source.path if places and places[0].source else None


def set_next_address(debugger: IDebugger, memory: CommandMemory, address: int) -> None:
    """gdb's set_next_address: where a bare `x` looks, and `$_` a `void *` to it."""
    memory.examine.next_address = address
    with contextlib.suppress(AliceError):
        debugger.evaluate(f"$_ = (void *) {address:#x}", None, 0)
