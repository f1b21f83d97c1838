"""The console's `list` and `forward-search` / `search` / `reverse-search` (gdb 13's
cli-cmds.c list_command, source.c search_command_helper).

`list` takes what gdb's string_to_location_spec takes: explicit locations (`-source F
-line N`, `-function F`, `-qualified`, an unknown `-WORD` refused in gdb's words), a whole
linespec in quotes (`'list0.c:main'`) and FILE:FUNCTION with gdb's errors when the file or
the function is not there; then adapters/gdbcommands/listing.py says which lines. A
`listsize` of 0 (unlimited) lists the whole file.

The searches go from gdb's last_line_listed (the first line the last `list` printed, or the
line a stop showed: print_source_lines_base sets it so) one line on (or back), print the first line matching the GNU basic regular expression (re_comp:
an empty one is the previous one), put its number in `$_`, and centre the next `list` on it.
A name of several places (list_places.py) is listed around each; `edit` runs `$EDITOR +LINE
"FILE"` through `shell`, under its policy.
"""

from __future__ import annotations

import contextlib
import os
import re
import weakref
from typing import TYPE_CHECKING

from aliceserver.adapters.gdbcommands.lines import default_file
from aliceserver.adapters.gdbcommands.listing import (
    Lines,
    ListPosition,
    current_source_line,
    lines_to_list,
    location_line,
    print_lines,
    skip_unreadable,
)
from aliceserver.adapters.gdbcommands.selection import LineBuffer
from aliceserver.adapters.mi.list_places import places_of
from aliceserver.adapters.mi.locations import Location, for_engine, not_found, parse
from aliceserver.adapters.mi.posix_regex import RegexError, basic
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply
from aliceserver.adapters.mi.repeat import dont_repeat
from aliceserver.errors import AliceError, ProtocolError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

_UNLIMITED = 2**31 - 1  # gdb's listsize 0 / unlimited is INT_MAX lines
_EXPLICIT = re.compile(r"-[A-Za-z]")
_QUOTED = re.compile(r"""(['"])([^'"]*:[^'"]*)\1""")
_QUOTED_FILE = re.compile(r"""(['"])([^'"]+)\1(:.*)""", re.S)


def list_size(ctx: Context) -> int:
    listsize = ctx.session.settings.get("listsize")
    if listsize in ("0", "unlimited"):
        return _UNLIMITED
    return int(listsize) if listsize.isdigit() and int(listsize) > 0 else 10


def _linespec(ctx: Context, text: str) -> str:
    """The list-mode linespec ARGUMENT stands for: explicit options turned into one, a
    quoted FILE:FUNCTION unquoted."""
    stripped = text.strip()
    if _EXPLICIT.match(stripped):
        location, rest = parse(stripped)  # gdb's errors for an unknown or incomplete option
        if location.explicit:
            return _explicit(ctx, location)
        # `-qualified SPEC`: a linespec after the flag (no function of another scope here)
        stripped = re.sub(r"^(?:\s*-[A-Za-z][\w-]*)+\s*", "", stripped)
        del rest
    quoted = _QUOTED.fullmatch(stripped)
    if quoted:
        return quoted.group(2)
    named = _QUOTED_FILE.fullmatch(stripped)  # 'FILE':LINE
    return named.group(2) + named.group(3) if named else stripped


def _explicit(ctx: Context, location: Location) -> str:
    if location.function is not None:
        parts = (location.source, location.function, location.label)
        return ":".join(part for part in parts if part)
    if location.label is not None:  # the selected frame's function's label
        spec = for_engine(ctx.session, location)
        if not ctx.session.debugger.resolve_location(spec):
            raise MiError(f'No label "{location.label}" defined in current function.')
        return spec
    assert location.line is not None
    return f"{location.source}:{location.line}" if location.source else location.line


def _list(ctx: Context, text: str) -> Reply:
    session = ctx.session
    session.ensure_symbols()
    size = list_size(ctx)
    memory = session.command_memory
    write = LineBuffer(ctx.console)
    spec = _linespec(ctx, text) if text.strip() not in ("", "+", "-") else text
    try:
        named = _ambiguous_or(ctx, spec, size, write)
        if named is None:
            return None
        spec = named
        try:
            lines = lines_to_list(
                session.debugger, session.console_selection(), memory, spec, size, write
            )
        except ProtocolError as error:
            if "," not in spec and ":" in spec and str(error).startswith('Function "'):
                raise MiError(not_found(session, spec)) from None
            raise
        _print(ctx, lines, write)
    finally:
        write.flush()
    return None


def _ambiguous_or(ctx: Context, spec: str, size: int, write: LineBuffer) -> str | None:
    """SPEC with a variable's name made its FILE:LINE; None once a name standing for more
    than one place was dealt with (listed around each, or gdb's error for a range's end)."""
    first, comma, last = spec.partition(",")
    sides = []
    for text, which in ((first, "first"), (last, "last")):
        found = places_of(ctx.session, text) if text.strip() not in ("", "+", "-") else []
        if len(found) > 1:
            if comma:
                write(f"Specified {which} line '{text.strip()}' is ambiguous:\n")
                for place in found:
                    write(place.header())
                return None
            for place in found:
                write(place.header())
                start = max(place.line - size // 2, 1)
                _print(ctx, Lines(place.path, start, start + size), write)
            return None
        lone = found[0] if len(found) == 1 and found[0].variable else None
        # a variable's file may have no code (a header): its lines, not FILE:LINE
        alone = (
            not comma
            or (which == "first" and not last.strip())
            or (which == "last" and not first.strip())
        )
        if lone is not None and alone:
            start = (
                max(lone.line - size // 2, 1)
                if not comma
                else lone.line
                if which == "first"
                else max(lone.line + 1 - size, 1)
            )
            end = lone.line + 1 if comma and which == "last" else start + size
            _print(ctx, Lines(lone.path, start, end), write)
            return None
        sides.append(f"{lone.path}:{lone.line}" if lone is not None else text)
    return f"{sides[0]},{sides[1]}" if comma else sides[0]


def _print(ctx: Context, lines: Lines, write: LineBuffer) -> None:
    session = ctx.session
    memory = session.command_memory
    content = session.frames.file_lines(lines.path)
    missing = session.frames.missing_or(lines.path, lines.first)
    if content is None or missing is not None:
        if missing is not None:  # gdb's print_source_lines: said, not an error
            write.flush()
            ctx.console(missing.text)
            ctx.log(missing.error)
        skip_unreadable(memory, lines)
        return
    print_lines(session.debugger, memory, lines, content, write)


# re_comp's previous expression, for an empty one (gdb's is one per process)
_previous: weakref.WeakKeyDictionary[MiSession, re.Pattern[str]] = weakref.WeakKeyDictionary()


def _search(ctx: Context, text: str, forward: bool) -> Reply:
    session = ctx.session
    pattern = text.strip()
    if pattern:
        try:
            _previous[session] = basic(pattern)
        except RegexError as error:
            raise MiError(str(error)) from None
    elif session not in _previous:
        raise MiError("No previous regular expression")
    regex = _previous[session]
    session.ensure_symbols()
    memory = session.command_memory
    if memory.listed is not None:  # gdb's last_line_listed: the first line the last listing printed
        path, last = memory.listed
    else:
        found = default_file(session.debugger, session.console_selection(), memory)
        if found is None:
            raise MiError('No symbol table is loaded.  Use the "file" command.')
        path, last = found, 0
    content = session.frames.file_lines(path)
    if content is None:
        raise MiError(f"{session.debugger.source_name(path)}: No such file or directory.")
    line = last + 1 if forward else last - 1
    if line < 1 or line > len(content):
        raise MiError("Expression not found")
    numbers = range(line, len(content) + 1) if forward else range(line, 0, -1)
    for number in numbers:
        if regex.search(content[number - 1]):
            write = LineBuffer(ctx.console)
            try:
                print_lines(
                    session.debugger, memory, Lines(path, number, number + 1), content, write
                )
            finally:
                write.flush()
            with contextlib.suppress(AliceError):
                session.debugger.evaluate(f"$_ = {number}", None, 0)
            # gdb centres the next `list` on the match
            assert memory.listed is not None
            centre = max(number - list_size(ctx) // 2, 1)
            memory.list_position = ListPosition(path, centre, number, memory.listed)
            return None
    ctx.console("Expression not found\n")
    return None


def _edit(ctx: Context, text: str) -> Reply:
    """gdb's edit_command: `$EDITOR +LINE "FILE"` through `shell` (its policy and words)."""
    from aliceserver.adapters.mi.console import run_console_command  # it registers this command

    session = ctx.session
    session.ensure_symbols()
    size, memory, selection = list_size(ctx), session.command_memory, session.console_selection()
    write = LineBuffer(ctx.console)
    try:
        if not text.strip():
            path, line = current_source_line(session.debugger, selection, memory, size)
            line += size // 2
        else:
            spec = _linespec(ctx, text)
            found = places_of(session, spec)
            if len(found) > 1:
                write("Specified line is ambiguous:\n")
                for place in found:
                    write(place.header())
                return None
            if found:
                path, line = found[0].path, found[0].line
            else:
                path, line = location_line(session.debugger, selection, memory, spec, size, write)
    finally:
        write.flush()
    editor = os.environ.get("EDITOR", "/bin/ex")
    return run_console_command(ctx, f'shell {editor} +{line} "{session.frames.fullname(path)}"')


def register_list(registry: CliRegistry) -> None:
    registry.add("edit", _edit)
    registry.add("dont-repeat", dont_repeat)  # it is about the repeated lines, as `list` is
    registry.add("list", _list, "l")
    registry.add("forward-search", lambda ctx, text: _search(ctx, text, True), "search", "fo")
    registry.add("reverse-search", lambda ctx, text: _search(ctx, text, False), "rev")
