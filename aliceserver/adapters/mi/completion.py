"""gdb's completion of a command line (`-complete` and the console's `complete`): command
names, the settings of `set`/`show`, and the functions of a breakpoint location, limited
by `max-completions`."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

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
        found = session.cli_commands.lookup(words[0]) if words else None
        command = found[0] if found is not None else ""
        argument = line[len(line) - len(line.lstrip()) + len(words[0]) :].lstrip()
        prefix = line[: len(line) - len(argument)]
        if command in _SETTING_COMMANDS:
            candidates = [(name, 0) for name in session.settings.names() if name.startswith(argument)]
        elif command in _LOCATION_COMMANDS and argument and " " not in argument:
            candidates = _functions(session, argument)
        else:
            candidates = []  # expressions and other arguments: not completed here
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


def console_complete(ctx: Context, text: str) -> Reply:
    """The console's `complete LINE`: each match on a line of its own, and gdb's note when
    max-completions cut them short."""
    found = complete(ctx.session, text)
    for match in found.matches if found.completion is not None else []:
        ctx.console(match + "\n")
    if found.max_reached:
        ctx.console(f"{text} *** List may be truncated, max-completions reached. ***\n")
    return None


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
