"""Parsing MI input lines: `[token]-command args...` or `[token]cli command`.

Arguments follow gdb's mi_parse_argv: separated by blanks; an argument starting with a
double quote is a c-string. As an extension a backslash-escaped blank (Vim's fnameescape
of a path) stays inside an unquoted argument. Leading `--thread N`, `--frame N`,
`--thread-group G` and `--language L` options are taken out here, as gdb does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from aliceserver.adapters.mi.output import CStringError, read_c_string
from aliceserver.errors import ProtocolError

_TOKEN = re.compile(r"[0-9]*")
_NAME = re.compile(r"[^ \t\n\v\f\r]*")  # gdb's mi_parse: the name runs to a blank


class MiParseError(ProtocolError):
    """A line that is not a well-formed MI command; `token` is kept for the reply."""

    def __init__(self, message: str, token: str = "") -> None:
        super().__init__(message)
        self.token = token


@dataclass
class MiCommand:
    token: str
    name: str  # without the leading dash
    args: list[str]
    raw_args: str  # the text after the name, for error messages and CLI pass-through
    thread: int | None = None
    frame: int | None = None
    thread_group: str | None = None
    language: str | None = None
    all_threads: bool = False


@dataclass
class CliCommand:
    token: str
    text: str
    extra: dict[str, str] = field(default_factory=dict)


def parse_line(line: str) -> MiCommand | CliCommand:
    """One input line (without its terminator)."""
    line = line.lstrip(" \t")  # gdb's mi_parse skips blanks before the token, and a CLI command's after it
    token = _TOKEN.match(line)
    assert token is not None  # [0-9]* always matches
    tok = token.group()
    rest = line[token.end() :]
    if not rest.startswith("-"):
        return CliCommand(tok, rest.lstrip(" \t"))
    name_match = _NAME.match(rest, 1)
    assert name_match is not None
    name = name_match.group()
    raw = rest[name_match.end() :]
    try:
        args = split_args(raw)
    except CStringError:
        raise MiParseError(f"Problem parsing arguments: {name} {raw.strip()}", tok) from None
    command = MiCommand(tok, name, args, raw.lstrip(" \t"))  # a set keeps trailing blanks (gdb)
    _take_global_options(command)
    return command


def split_args(text: str) -> list[str]:
    """Blank-separated arguments; c-strings decoded (bytes as UTF-8, invalid kept)."""
    args: list[str] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in " \t":
            i += 1
        if i >= n:
            return args
        if text[i] == '"':
            data, i = read_c_string(text, i)
            if i < n and text[i] not in " \t":
                raise CStringError("text after a closing quote")
            args.append(data.decode("utf-8", "surrogateescape"))
            continue
        start, parts = i, []
        while i < n and text[i] not in " \t":
            if text[i] == "\\" and i + 1 < n and text[i + 1] in " \t":
                parts.append(text[start:i])
                start = i + 1
                i += 2
                continue
            i += 1
        parts.append(text[start:i])
        args.append("".join(parts))


def _plain_words(text: str) -> int:
    """How many words lead `text` before the first c-string: gdb reads global options
    from the raw text, so a quoted "--thread" is an argument, not an option."""
    count = 0
    for word in text.split():
        if word.startswith('"'):
            break
        count += 1
    return count


# The languages gdb 13 knows by name (`set language`'s values but auto and local).
_LANGUAGE_NAMES = frozenset(("ada", "asm", "c", "c++", "d", "fortran", "go", "minimal", "modula-2",
                             "objective-c", "opencl", "pascal", "rust"))  # fmt: skip


def _take_global_options(command: MiCommand) -> None:
    args = command.args
    plain = _plain_words(command.raw_args)
    while args and plain > 0:
        option = args[0]
        plain -= 2 if option != "--all" else 1
        if option in ("--thread", "--frame", "--thread-group", "--language"):
            if len(args) < 2:
                raise MiParseError(f"Missing argument for {option}", command.token)
            value = args[1]
            del args[:2]
            if option == "--thread-group":
                if not value.startswith("i"):  # gdb's mi_parse
                    raise MiParseError("Invalid thread group id", command.token)
                command.thread_group = value
            elif option == "--language":
                if value not in _LANGUAGE_NAMES:  # gdb's language_enum; auto is no language
                    raise MiParseError(f"Invalid --language argument: {value}", command.token)
                command.language = value
            else:
                try:
                    number = int(value, 10)
                except ValueError:
                    raise MiParseError(f"Invalid {option[2:]} id: {value}", command.token) from None
                if option == "--thread":
                    command.thread = number
                else:
                    command.frame = number
        elif option == "--all":
            command.all_threads = True
            del args[:1]
        else:
            return


@dataclass
class Options:
    """What `getopt` found: option name (no dashes) -> list of values ("" for a flag)."""

    found: dict[str, list[str]]
    rest: list[str]

    def has(self, name: str) -> bool:
        return name in self.found

    def get(self, name: str) -> str | None:
        values = self.found.get(name)
        return values[-1] if values else None


def getopt(command: str, args: list[str], flags: str = "", valued: str = "", long: tuple[str, ...] = ()) -> Options:
    """gdb's mi_getopt: single-dash options before the parameters, `--` ends them.

    `flags`/`valued`: one-letter options without / with a value; `long`: whole-word flags
    (`--simple-values`; an entry ending with `=` takes a value).
    """
    found: dict[str, list[str]] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            i += 1
            break
        if not arg.startswith("-") or arg == "-" or _is_number(arg):
            break
        name = arg.lstrip("-")
        if name in long:
            found.setdefault(name, []).append("")
            i += 1
        elif f"{name}=" in long or (len(arg) == 2 and name in valued):
            if i + 1 >= len(args):
                raise ProtocolError(f"-{command}: Option {arg} requires an argument")
            found.setdefault(name, []).append(args[i + 1])
            i += 2
        elif len(arg) == 2 and name in flags:
            found.setdefault(name, []).append("")
            i += 1
        else:
            raise ProtocolError(f"-{command}: Unknown option ``{arg[1:]}''")
    return Options(found, args[i:])


def _is_number(text: str) -> bool:
    try:
        int(text, 0)
    except ValueError:
        return False
    return True
