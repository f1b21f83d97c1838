"""gdb's completion of a command line (`-complete` and the console's `complete`): command
names, the settings of `set`/`show`, and the functions of a breakpoint location, limited
by `max-completions`."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.completion_fields import member_completions
from aliceserver.adapters.mi.registry import MiError
from aliceserver.debuggers.model import SymbolDomain, SymbolSearchQuery
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.registry import Context, Reply
    from aliceserver.adapters.mi.session import MiSession

# Aliases gdb lists beside the commands: the others are abbreviations (`br`, `c`), which
# gdb's completer leaves out.
_LISTED_ALIASES = frozenset(("bt", "where", "ni", "si"))
_LOCATION_COMMANDS = frozenset(("break", "tbreak", "until", "advance", "jump", "clear", "dprintf"))
_SETTING_COMMANDS = frozenset(("set", "show"))
# Those whose argument is an expression gdb completes (its expression_completer).
_EXPRESSION_COMMANDS = frozenset(("print", "inspect", "call", "ptype", "whatis"))
_LINE_NUMBER = re.compile(r"-\d+")
_CPLUS_SUFFIXES = (".cc", ".cpp", ".cxx", ".c++", ".C", ".hh", ".hpp", ".hxx", ".h++")


@dataclass
class Completion:
    """What `-complete` answers: the line completed as far as every match agrees (None:
    no match), the matches, and whether max-completions cut them short."""

    completion: str | None = None
    matches: list[str] = field(default_factory=list)
    max_reached: bool = False


def complete(session: MiSession, line: str) -> Completion:
    limit_text = session.settings.get("max-completions")
    limit = None if limit_text == "unlimited" else int(limit_text)
    if limit == 0:
        raise MiError("max-completions is zero, completion is disabled.")
    words = line.split()
    if not words or (len(words) == 1 and not line.endswith(" ")):
        prefix, word = "", words[0] if words else ""
        candidates = [(name, 0) for name in _command_names(session) if name.startswith(word)]
    else:
        found = session.cli_commands.lookup(words[0].split("/")[0]) if words else None
        command = found[0] if found is not None else ""
        argument = line[len(line) - len(line.lstrip()) + len(words[0]) :].lstrip()
        prefix = line[: len(line) - len(argument)]
        values = _setting_values(session, argument) if command == "set" else None
        if values is not None:
            candidates = values
        elif command in _SETTING_COMMANDS:
            candidates = [(name, 0) for name in session.settings.names() if name.startswith(argument)]
        elif command in _LOCATION_COMMANDS and argument and " " not in argument:
            candidates = _functions(session, argument)
        elif command == "condition":
            start, names = _condition(session, argument)
            prefix, candidates = prefix + argument[:start], [(name, 0) for name in names]
        elif command in _EXPRESSION_COMMANDS or (command in ("display", "x") and "/" in words[0] + argument[:1]):
            # (gdb's display and x complete an expression only after a /FMT)
            start, names = _expression(session, _after_print_options(words[0], argument))
            cut = len(line) - len(argument) + start if names else len(line)
            prefix, candidates = line[:cut], [(name, 0) for name in names]
        else:
            candidates = []  # other arguments: not completed here
    candidates = sorted(set(candidates))
    result = Completion()
    if limit is not None and len(candidates) >= limit:  # gdb stops looking at the limit
        candidates, result.max_reached = candidates[:limit], True
    if candidates:
        # gdb's lowest common denominator, from where each match matched (`push_back(`)
        result.completion = prefix + os.path.commonprefix([name[start:] for name, start in candidates])
    # a single match is given as the line it completes to
    result.matches = [prefix + name for name, _ in candidates] if len(candidates) != 1 else [result.completion or ""]
    return result


def _setting_values(session: MiSession, argument: str) -> list[tuple[str, int]] | None:
    """The values of the setting `argument` names before its last word that the word
    starts (None: it names no setting there). gdb offers NUMBER only for no word at all."""
    head, space, word = argument.rpartition(" ")
    found = session.settings.find(head.split()) if space else None
    if found is None or found[1]:
        return None
    choices = session.settings.value_choices(found[0])
    return [(f"{head} {choice}", 0) for choice in choices if choice.startswith(word) and (choice != "NUMBER" or not word)]


def console_complete(ctx: Context, text: str) -> Reply:
    """The console's `complete LINE`: each match on a line of its own, and gdb's note when
    max-completions cut them short."""
    found = complete(ctx.session, text)
    for match in found.matches if found.completion is not None else []:
        ctx.console(match + "\n")
    if found.max_reached:
        ctx.console(f"{text} *** List may be truncated, max-completions reached. ***\n")
    return None


def _condition(session: MiSession, text: str) -> tuple[int, list[str]]:
    """gdb's condition_completer on `text` (after `condition `): its `-force` option, a
    breakpoint number (or a `$` variable holding one), then the condition's members.
    Where the completed word starts in `text`, and its completions."""
    pos = 0
    while True:  # gdb's complete_options: -force, any number of times, or `--`
        while pos < len(text) and text[pos].isspace():
            pos += 1
        end = pos
        while end < len(text) and not text[end].isspace():
            end += 1
        word = text[pos:end]
        if not word.startswith("-") or _LINE_NUMBER.fullmatch(word):
            break
        if end == len(text):  # completing the option's name
            return pos, ["-force"] if "-force".startswith(word) else []
        if word == "--":
            pos = end
            while pos < len(text) and text[pos].isspace():
                pos += 1
            break
        if not "-force".startswith(word) or len(word) < 2:
            return pos, []  # gdb: an unknown option is an error
        pos = end
    rest = text[pos:]
    if not rest or not any(ch.isspace() for ch in rest):  # the breakpoint's number
        if rest.startswith("$"):
            if rest[1:2].isdigit():
                return pos + 1, []  # (no completion of history numbers)
            return pos + 1, [name for name in session.debugger.convenience_names() if name.startswith(rest[1:])]
        numbers = [str(bp.number) for bp in session.breakpoints.sorted() if str(bp.number).startswith(rest)]
        return pos, (["-force"] if not text else []) + numbers
    space = pos + next(i for i, ch in enumerate(rest) if ch.isspace())
    while space < len(text) and text[space].isspace():
        space += 1
    start, names = _expression(session, text[space:])
    return space + start, names


def _expression(session: MiSession, text: str) -> tuple[int, list[str]]:
    found = member_completions(session, text)
    return found if found is not None else (len(text), [])


def _after_print_options(command_word: str, text: str) -> str:
    """The expression of print & co after gdb's `/FMT` and its `-OPTION ... --`; the text
    past the end when options go unended (not completed here)."""
    if "/" in command_word:
        return text
    if text.startswith("/"):
        ended = re.search(r"\s|$", text)
        assert ended is not None
        return " " * ended.end() + text[ended.end() :]
    if text.startswith("-"):
        ended = re.search(r"(?:^|\s)--(?:\s|$)", text)
        if ended is None:
            return ""
        return " " * ended.end() + text[ended.end() :]
    return text


def _command_names(session: MiSession) -> list[str]:
    return session.cli_commands.completable(_LISTED_ALIASES)


def _functions(session: MiSession, text: str) -> list[tuple[str, int]]:
    """The functions whose name, or a scope-free part of it (gdb's wild matching), starts
    with `text`: (name as gdb lists it, where the match starts). C++ functions are listed
    with their parameters, and bare as well when the ELF symbol is unmangled (`main`)."""
    session.ensure_symbols()
    try:
        found = session.debugger.search_symbols(SymbolSearchQuery(SymbolDomain.FUNCTIONS))
    except AliceError:
        return []
    names: list[tuple[str, int]] = []
    for entry in found.debug:
        start = _match_start(entry.name, text)
        if start is None:
            continue
        cplus = "::" in entry.name or entry.file.endswith(_CPLUS_SUFFIXES)
        open_paren = entry.type.find("(")
        if cplus and open_paren >= 0:
            # gdb's C++ names are demangled ones: `f(char**)`, not whatis's `char **`
            names.append((entry.name + re.sub(r" (?=[*&])", "", entry.type[open_paren:]), start))
            if "::" in entry.name or not _has_elf_symbol(session, entry.name):
                continue  # its ELF symbol is mangled: gdb knows it with parameters only
        names.append((entry.name, start))
    return names


def _match_start(name: str, text: str) -> int | None:
    if name.startswith(text):
        return 0
    start = 0
    while (found := name.find("::", start)) >= 0:
        start = found + 2
        if name.startswith(text, start):
            return start
    return None


def _has_elf_symbol(session: MiSession, name: str) -> bool:
    try:
        session.debugger.lookup_symbol(name)
    except AliceError:
        return False
    return True
