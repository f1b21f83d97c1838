"""gdb 13's `list` (cli-cmds.c list_command, source.c print_source_lines): which lines.

The first `list` after a frame was shown (a stop, `frame`, `up`) centres on that frame's
line; before any, on main's (gdb's select_source_symtab). A bare `list` or `list +` then
goes on after the last line listed, `list -` goes back before the first; `list LOC`
centres on LOC (a function on its `{` line), `list A,B`, `list A,` and `list ,B` give
ranges, `list *ADDR` says where the address is first. Past the end of the file it is
gdb's `Line number N out of range; FILE has M lines.`
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from aliceserver.adapters.gdbcommands.examine import address_of
from aliceserver.adapters.gdbcommands.lines import default_file, list_mode_line
from aliceserver.adapters.gdbcommands.quoting import unquoted
from aliceserver.adapters.gdbcommands.selection import CommandMemory, Selection, Write
from aliceserver.adapters.gdbcommands.sourcetext import shown_line
from aliceserver.debuggers.base import IDebugger
from aliceserver.errors import AliceError, ProtocolError
from aliceserver.regexes import compiled_later

_FILE_LINE = compiled_later(r"^(?:(?P<file>.+):)?(?P<line>\d+)$")
ReadLines = Callable[[str], "list[str] | None"]


@dataclass(slots=True)
class ListPosition:
    """gdb's current source line and first_line_listed, as the last `list` left them."""

    path: str
    next_line: int
    first_listed: int
    # CommandMemory.listed as that `list` set it: a frame shown since puts another tuple
    # there (gdb's set_current_sal_from_frame), and the next `list` centres on it again.
    marker: tuple[str, int] | None


@dataclass(frozen=True, slots=True)
class Lines:
    """The lines to print: [first, end) of the file at `path`."""

    path: str
    first: int
    end: int


def lines_to_list(
    debugger: IDebugger, where: Selection, memory: CommandMemory, argument: str, size: int, write: Write,
) -> Lines:
    """Which lines `list ARGUMENT` prints (with `listsize` SIZE); writes the `*ADDR` header."""
    text = argument.strip()
    position = memory.list_position
    fresh = position is None or position.marker is not memory.listed
    if text in ("", "+", "-"):
        if fresh:
            path, line = _current_line(debugger, where, memory, size)
            first = max(line - size // 2, 1)
            if text == "-" and size == 1 and first > 1:
                first -= 1
            return Lines(path, first, first + size)
        assert position is not None
        if text == "-":
            if position.first_listed == 1:
                raise ProtocolError(f"Already at the start of {debugger.source_name(position.path)}.")
            return Lines(position.path, max(position.first_listed - size, 1), position.first_listed)
        return Lines(position.path, position.next_line, position.next_line + size)
    start_text, comma, end_text = text.partition(",")
    start_text, end_text = start_text.strip(), end_text.strip()
    if comma and not start_text and not end_text:
        raise ProtocolError("Two empty args do not say what lines to list.")
    if not start_text:
        path, line = _location(debugger, where, memory, end_text, None, write, size)
        return Lines(path, max(line + 1 - size, 1), line + 1)
    path, line = _location(debugger, where, memory, start_text, None, write, size)
    if not comma:
        first = max(line - size // 2, 1)
        return Lines(path, first, first + size)
    if not end_text:
        return Lines(path, line, line + size)
    offset = re.fullmatch(r"([+-])(\d+)", end_text)
    if offset:  # a linespec's offset counts from the first line (gdb's default line there)
        # linespec.c's create_sals_line_offset: +0 is +5 and -0 is -15; an end before
        # the first line lists nothing (the next `list` starts at the first line)
        count = int(offset.group(2)) or (5 if offset.group(1) == "+" else 15)
        return Lines(path, line, line + (count if offset.group(1) == "+" else -count) + 1)
    end_path, end_line = _location(debugger, where, memory, end_text, path, write, size)
    if end_path != path:
        raise ProtocolError("Specified first and last lines are in different files.")
    return Lines(path, line, end_line + 1)


def print_lines(debugger: IDebugger, memory: CommandMemory, lines: Lines, text: list[str], write: Write) -> None:
    """gdb's print_source_lines over the file's TEXT: the position moves first, then an
    empty range prints nothing and one past the end is an error."""
    _moved(memory, lines.path, lines.first, lines.first)
    if lines.end <= lines.first:
        return
    if lines.first > len(text):
        name = debugger.source_name(lines.path)
        raise ProtocolError(f"Line number {lines.first} out of range; {name} has {len(text)} lines.")
    last = min(lines.end - 1, len(text))
    for number in range(lines.first, last + 1):
        write(f"{number}\t{shown_line(text[number - 1])}\n")
    _moved(memory, lines.path, last + 1, lines.first)


def skip_unreadable(memory: CommandMemory, lines: Lines) -> None:
    """A file that cannot be read was reported instead: the next `list` goes on after it."""
    _moved(memory, lines.path, lines.end, lines.first)


def _moved(memory: CommandMemory, path: str, next_line: int, first: int) -> None:
    memory.listed = (path, first)  # gdb's last_line_listed, for a bare `info line`
    memory.list_position = ListPosition(path, next_line, first, memory.listed)


def _current_line(debugger: IDebugger, where: Selection, memory: CommandMemory, size: int) -> tuple[str, int]:
    """The line a fresh `list` centres on: the frame shown last, else near main's."""
    if memory.listed is not None:
        return memory.listed
    places = [p for p in debugger.resolve_location("main") if p.source is not None]
    if not places or places[0].source is None:
        raise ProtocolError('No symbol table is loaded.  Use the "file" command.')
    # select_source_symtab: main's first line after its prologue, a screen back
    return places[0].source.path, max(places[0].source.line - (size - 1), 1)


def _location(
    debugger: IDebugger, where: Selection, memory: CommandMemory, text: str, default: str | None, write: Write,
    size: int,
) -> tuple[str, int]:
    """A list-mode linespec: LINE, +OFFSET, -OFFSET, FILE:LINE, FUNCTION (its `{` line), *ADDRESS."""
    offset = re.fullmatch(r"([+-])\s*(\d+)", text)
    if offset is not None and default is None:  # from gdb's current source line
        path, base = _current_source_line(debugger, where, memory, size)
        moved = base + int(offset.group(2)) if offset.group(1) == "+" else base - int(offset.group(2))
        return path, max(moved, 1)
    match = _FILE_LINE().match(text)
    if match is not None:
        if match["file"] is not None:
            found = debugger.line_start(match["file"], 1)
            named = found.source.path if found is not None else _named_file(debugger, match["file"])
            if named is None:
                raise ProtocolError(f'No source file named {match["file"]}.')
            return named, int(match["line"])
        path = default or _default_path(debugger, where, memory)
        return path, int(match["line"])
    if text.startswith("*"):
        address = address_of(debugger, where, text[1:].strip())
        found = debugger.line_range(address)
        if found is None:
            raise ProtocolError(f"No source file for address {address:#x}.")
        name = debugger.source_name(found.source.path)
        try:
            function = debugger.lookup_address(address).name
        except AliceError:
            function = ""
        if function:
            write(f"{address:#x} is in {function} ({name}:{found.source.line}).\n")
        else:
            write(f"{address:#x} is at {name}:{found.source.line}.\n")
        return found.source.path, found.source.line
    places = debugger.resolve_location(text)
    if not places:
        raise ProtocolError(f'Function "{unquoted(text)}" not defined.')
    line = list_mode_line(debugger, places[0].address)
    if line is None:
        raise ProtocolError(f"No line number known for {text}.")
    return line


def location_line(
    debugger: IDebugger, where: Selection, memory: CommandMemory, text: str, size: int, write: Write,
) -> tuple[str, int]:
    """The (file, line) a list-mode linespec names (`edit LOCATION`)."""
    return _location(debugger, where, memory, text.strip(), None, write, size)


def current_source_line(
    debugger: IDebugger, where: Selection, memory: CommandMemory, size: int
) -> tuple[str, int]:
    """gdb's current source line (a bare `edit`)."""
    return _current_source_line(debugger, where, memory, size)


def _current_source_line(
    debugger: IDebugger, where: Selection, memory: CommandMemory, size: int
) -> tuple[str, int]:
    """gdb's current source line: after a listing the line after it, else the line a frame
    showed, else near main's."""
    position = memory.list_position
    if position is not None and position.marker is memory.listed:
        return position.path, position.next_line
    return _current_line(debugger, where, memory, size)


def _named_file(debugger: IDebugger, name: str) -> str | None:
    """A file the debug info names that has no code (a unit's own file that only
    includes others: gdb finds it by the unit's DW_AT_name)."""
    try:
        files = debugger.source_files()
    except AliceError:
        return None
    return next((path for path in files if path == name or path.endswith("/" + name.lstrip("./"))), None)


def _default_path(debugger: IDebugger, where: Selection, memory: CommandMemory) -> str:
    if memory.list_position is not None:
        return memory.list_position.path
    path = default_file(debugger, where, memory)
    if path is None:
        raise ProtocolError('No symbol table is loaded.  Use the "file" command.')
    return path
