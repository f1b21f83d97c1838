"""gdb's location specs, as break, tbreak, until, advance and -break-insert take them.

Explicit locations (`-source F -function F -label L -line N`, `-qualified`), linespecs
(`LINE`, `+OFFSET`, `FILE:LINE`, `FUNCTION`, `FILE:FUNCTION`, `FUNCTION:LABEL`, `*ADDRESS`)
and the keywords after them (`if`, `thread`, `task`, `-force-condition`) are read here with
gdb's errors; the engine is then given `FILE:LINE`, `[FILE:]FUNCTION[:LABEL]` or `*ADDRESS`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from aliceserver.adapters.gdbcommands.quoting import unquoted
from aliceserver.adapters.mi.pending_query import LocationNotFound
from aliceserver.adapters.mi.registry import MiError
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession
    from aliceserver.debuggers.model import CodeLocation

# gdb matches an option by the prefix typed, in this order (`-l` is -line).
_OPTIONS = ("-source", "-function", "-qualified", "-line", "-label")
_KEYWORD = re.compile(r"\s(?:if|thread|task|-force-condition)(?=\s)|\sif(?=\()")
_SCOPE_COLON = re.compile(r"(?<!:):(?!:)")
_LINE = re.compile(r"[+-]?[0-9]+")
_NUMBER_TOKEN = re.compile(r"([+-]?[0-9]+)(?:[\s,]|$)")


@dataclass(frozen=True)
class Location:
    source: str | None = None
    function: str | None = None
    label: str | None = None
    line: str | None = None  # N, +N or -N
    address: str | None = None  # the expression after `*`
    qualified: bool = False
    explicit: bool = False

    def text(self) -> str:
        """An explicit location as gdb writes it back (original-location)."""
        words = ["-qualified"] if self.qualified else []
        for option, value in (("-source", self.source), ("-function", self.function),
                              ("-label", self.label), ("-line", self.line)):  # fmt: skip
            if value is not None:
                words += [option, value]
        return " ".join(words)


def split_keywords(text: str) -> tuple[str, str]:
    """(location, the rest from its first keyword: `if ...`, `thread N`, ...)."""
    found = _KEYWORD.search(" " + text)
    if found is None:
        return text.strip(), ""
    return text[: found.start()].strip(), text[found.start() :].strip()


def _value(text: str, pos: int, option: str, typed: str) -> tuple[str, int]:
    """An option's argument from `pos`: quoted, a function name up to the next option or
    keyword, or one word; gdb's error names the option as `typed`."""
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if pos >= len(text) or (text[pos] == "-" and not _LINE.match(text, pos)):
        raise MiError(f'missing argument for "{typed}"')
    if text[pos] in "\"'":
        end = text.find(text[pos], pos + 1)
        end = len(text) if end < 0 else end
        return text[pos + 1 : end], end + 1
    if option == "-function":
        stop = re.compile(r"\s+(?:-[A-Za-z]|(?:if|thread|task)\s)").search(text, pos)
        end = stop.start() if stop else len(text)
        return text[pos:end].strip(), end
    end = pos
    while end < len(text) and not text[end].isspace():
        end += 1
    return text[pos:end], end


def parse(text: str) -> tuple[Location, str]:
    """A console location and what follows it (keywords, or garbage for the caller)."""
    values: dict[str, str] = {}
    qualified = False
    pos = 0
    while True:
        match = re.compile(r"\s*(-[A-Za-z][\w-]*)").match(text, pos)
        if match is None or match.group(1) == "-force-condition":
            break
        word = match.group(1)
        option = next((o for o in _OPTIONS if o.startswith(word)), None)
        if option is None:
            raise MiError(f'invalid explicit location argument, "{word}"')
        pos = match.end()
        if option == "-qualified":
            qualified = True
        else:
            values[option], pos = _value(text, pos, option, word)
    rest = text[pos:].strip()
    if values:
        if set(values) == {"-source"}:
            raise MiError("Source filename requires function, label, or line offset.")
        location = Location(values.get("-source"), values.get("-function"), values.get("-label"),
                            values.get("-line"), qualified=qualified, explicit=True)  # fmt: skip
        if rest and split_keywords(rest)[0]:
            raise MiError(f"Garbage '{split_keywords(rest)[0]}' at end of command")
        return location, rest
    spec, keywords = split_keywords(rest)
    return _linespec(spec, qualified), keywords


def _unexpected(garbage: str) -> str:
    """gdb's error at what follows a line number: its lexer's first token, a number where
    it is one (a sign and digits ending at a blank), else the rest as one string."""
    number = _NUMBER_TOKEN.match(garbage)
    if number is not None:
        return f'malformed linespec error: unexpected number, "{number.group(1)}"'
    return f'malformed linespec error: unexpected string, "{garbage}"'


def _linespec(spec: str, qualified: bool) -> Location:
    if not spec:
        return Location(qualified=qualified)
    if spec.startswith("*"):
        return Location(address=spec[1:].strip(), qualified=qualified)
    parts = [part.strip() for part in _SCOPE_COLON.split(spec)]
    last = parts[-1]
    head, _, garbage = last.partition(" ")
    if _LINE.fullmatch(head) and garbage.strip() and len(parts) <= 2:
        raise MiError(_unexpected(garbage.strip()))
    if len(parts) > 3 or (len(parts) == 3 and " " in last):
        if not last:  # `a:b:c:`: ends with its colon
            raise MiError("malformed linespec error: unexpected end of input")
        raise MiError(f'malformed linespec error: unexpected string, "{last.split()[-1]}"')
    if any(not part for part in parts):
        raise MiError("malformed linespec error: unexpected end of input" if parts[0]
                      else "malformed linespec error: unexpected colon")  # fmt: skip
    if len(parts) == 1:
        return Location(line=last, qualified=qualified) if _LINE.fullmatch(last) else \
            Location(function=_single_quoted(last), qualified=qualified)
    if len(parts) == 2 and _LINE.fullmatch(last):
        return Location(source=parts[0].strip("\"'"), line=last, qualified=qualified)
    if len(parts) == 3:
        return Location(source=parts[0].strip("\"'"), function=_single_quoted(parts[1]), label=last,
                        qualified=qualified)  # fmt: skip
    # FILE:FUNCTION or FUNCTION:LABEL: the engine tells them apart by its source files
    return Location(source=parts[0].strip("\"'"), function=_single_quoted(last), qualified=qualified)


def _single_quoted(name: str) -> str:
    """A function name quoted in double quotes as the engine takes a quoted one: in single
    quotes (gdb's linespec lexer takes either)."""
    if len(name) > 2 and name[0] == name[-1] == '"' and "'" not in name:
        return f"'{name[1:-1]}'"
    return name


def for_engine(session: MiSession, location: Location, last_displayed: bool = False) -> str:
    """The spec the engine resolves; `last_displayed`: a line counts in the stopped frame's
    file (until, advance, jump: gdb's decode_line_with_last_displayed)."""
    if location.address is not None:
        return f"*{location.address}"
    if location.function is not None and location.label is None and re.fullmatch(r"\$\w+", location.function):
        held = _variable_line(session, location.function)
        if held is not None:
            location = replace(location, function=None, line=held)
    if location.function is not None:
        parts = [location.source, location.function, location.label]
        return ":".join(part for part in parts if part)
    if location.label is not None:
        function = _current_function(session)
        if function is None:
            raise LocationNotFound(f'No label "{location.label}" defined in current function.')
        return f"{function}:{location.label}"
    if location.line is None:
        raise MiError("No default breakpoint address now.")
    if location.source is not None:
        return f"{location.source}:{int(location.line)}"
    path, line = _default_line(session, last_displayed or location.line[0] in "+-")
    number = line + int(location.line) if location.line[0] in "+-" else int(location.line)
    if number <= 0:
        raise LocationNotFound(f"No line {number} in the current file.")
    return f"{path}:{number}"


def _variable_line(session: MiSession, name: str) -> str | None:
    """The line a convenience variable holds (gdb's linespec: `break $foo`, `break f.c:$l`);
    None when no such variable is set (the name is then a function's, as in gdb)."""
    if name[1:] not in session.debugger.convenience_names():
        return None
    try:
        value = session.evaluate(name).value
        return str(int(value.split()[0], 0))
    except (AliceError, ValueError, IndexError):
        raise MiError("Convenience variables used in line specs must have integer values.") from None


def spec_of(session: MiSession, text: str, last_displayed: bool = False) -> str:
    """The engine's spec for a location given alone (MI, until, advance): nothing may
    follow it."""
    location, rest = parse(text.strip())
    if rest:
        raise MiError(f"Garbage '{rest}' at end of location")
    return for_engine(session, location, last_displayed)


def not_found(session: MiSession, spec: str, given: str = "") -> str:
    """gdb's words for a spec that names no code."""
    if spec.startswith("*"):
        return f"Cannot access memory at address {spec[1:]}"
    parts = [unquoted(part.strip()) for part in _SCOPE_COLON.split(spec)]
    if len(parts) >= 2 and _LINE.fullmatch(parts[-1]):
        if not _is_source_file(session, parts[0]):
            return f"No source file named {parts[0]}."
        if _LINE.fullmatch(split_keywords(given)[0].strip()):
            return f"No line {parts[-1]} in the current file."
        return f'No line {parts[-1]} in file "{parts[0]}".'
    if len(parts) == 1:
        kind = "Undefined convenience variable or function" if spec.startswith("$") else "Function"
        return f'{kind} "{unquoted(spec)}" not defined.'
    if len(parts) == 3 or _is_source_file(session, parts[0]):
        file, function = parts[0], parts[1]
        if not session.debugger.resolve_location(f"{file}:{function}"):
            return f'Function "{function}" not defined in "{file}".'
        return f'No label "{parts[-1]}" defined in function "{function}".'
    if session.debugger.resolve_location(parts[0]):
        return f'No label "{parts[1]}" defined in function "{parts[0]}".'
    return f"No source file named {parts[0]}."


def _is_source_file(session: MiSession, name: str) -> bool:
    try:
        files = session.debugger.source_files()
    except AliceError:
        return False
    name = name.strip("\"'")
    return any(path == name or path.endswith("/" + name.lstrip("./")) for path in files)


def _current_function(session: MiSession) -> str | None:
    inferior = session.inferior
    if inferior.process is None or inferior.running or inferior.selected_tid is None:
        return None
    try:
        return session.frames.frame(inferior.selected_tid, inferior.selected_level).function
    except AliceError:
        return None


def _default_line(session: MiSession, framed: bool) -> tuple[str, int]:
    """gdb's default line for `break N`/`+N` (parse_breakpoint_sals): `framed` (`+N`/`-N`,
    until's N) counts from where the program stopped; otherwise gdb's current source line,
    the file a `list` or a shown frame left (the line after a listing), else a listing's
    first line around main."""
    inferior = session.inferior
    memory = session.command_memory
    listed, position = memory.listed, memory.list_position
    if listed is not None and not (framed and inferior.process is not None and not inferior.running):
        if position is not None and position.marker is listed:
            return position.path, position.next_line
        return listed
    if inferior.process is not None and not inferior.running and inferior.selected_tid is not None:
        try:
            frame = session.frames.frame(inferior.selected_tid, inferior.selected_level)
            if frame.source is not None:
                return frame.source.path, frame.source.line
        except AliceError:
            pass
    path = session.current_source()
    if path is None:
        raise MiError('No symbol table is loaded.  Use the "file" command.')
    listsize = session.settings.get("listsize")
    size = int(listsize) if listsize.isdigit() and int(listsize) > 0 else 10
    mains = [place for place in session.debugger.resolve_location("main") if place.source is not None]
    line = mains[0].source.line if mains and mains[0].source is not None else 1
    return path, max(line - (size - 1), 1)


def console_location(text: str) -> tuple[str, str]:
    """A console command's location as it is kept (original-location) and its keywords."""
    location, rest = parse(text)
    if location.explicit:
        return location.text(), rest
    shown = split_keywords(re.sub(r"^\s*(?:-q[a-z]*\s+)+", "", text))[0]
    return (f"-qualified {shown}" if location.qualified and shown else shown), rest


def resolve_in_programs(session: MiSession, spec: str) -> tuple[list[CodeLocation], int]:
    """gdb resolves a breakpoint in every inferior's program: here, in the current one's,
    or where it has no program, in the first other inferior's that has one (the engine
    holds one program at a time). The places and that inferior's number."""
    from aliceserver.adapters.mi.inferior_list import as_current

    current = session.inferior
    others = [other for other in session.inferiors if other is not current and other.program]
    for inferior in [current] if current.program or not others else others:
        with as_current(session, inferior):
            session.ensure_symbols()
            if session.has_symbols():
                return session.debugger.resolve_location(spec), inferior.number
    return [], current.number
