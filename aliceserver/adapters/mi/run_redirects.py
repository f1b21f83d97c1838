"""`run ARGS < in > out 2>&1`: gdb hands the argument text to a shell (startup-with-shell),
which splits words, removes quotes and applies the redirections. We start the program
without a shell, so this splits the text as sh does for the parts people use at a `run`
(words, quotes, backslashes, `<`, `>`, `>>`, `N>`, `N>&M`, `&>`) and leaves the
redirections to the launcher. Expansions (`$HOME`, globs) stay literal, as before; pipes and
command lists have no meaning without a shell and are refused with sh's own words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from aliceserver.adapters.mi.registry import MiError
from aliceserver.debuggers.model import Redirection

_SPECIAL = "<>|;&"  # unquoted, these end a word


@dataclass
class CommandLine:
    args: list[str] = field(default_factory=list)
    redirections: list[Redirection] = field(default_factory=list)


def split_command_line(text: str, *, shell: bool = True) -> CommandLine:
    """The program's arguments and redirections in `text`; MiError as sh's syntax error.
    Without the shell (`set startup-with-shell off`) gdb's breakup_args splits at blanks
    alone: quotes and `<` stay in the arguments and nothing is redirected."""
    if not shell:
        return CommandLine([word for word in re.split("[ \t\n]+", text) if word])
    found = CommandLine()
    position = 0
    while True:
        position = _skip_blanks(text, position)
        if position >= len(text):
            return found
        word, end, quoted = _word(text, position)
        if end < len(text) and text[end] in "<>" and (not word or _number(word) and not quoted):
            position = _redirection(text, end, int(word) if word else None, found)
        elif end < len(text) and text[end] == "&" and not word and text[end + 1:end + 2] == ">":
            position = _redirection(text, end + 1, None, found, both=True)
        elif end < len(text) and text[end] in "|;&":
            raise MiError(f"syntax error near unexpected token `{text[end]}': "
                          "a pipe or a command list needs a shell, which `run` does not start")
        else:
            found.args.append(word)
            position = end


def _number(word: str) -> bool:
    return word.isascii() and word.isdigit()


def _skip_blanks(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\n":
        position += 1
    return position


def _word(text: str, position: int) -> tuple[str, int, bool]:
    """The word starting at `position` with its quotes removed, where it ends, and whether
    any of it was quoted (`"2">x` is an argument 2 and a redirection of stdout)."""
    out: list[str] = []
    quoted = False
    while position < len(text):
        char = text[position]
        if char in " \t\n" or char in _SPECIAL:
            break
        if char == "\\":
            quoted = True
            if position + 1 < len(text):
                out.append(text[position + 1])
            position += 2
        elif char == "'":
            close = text.find("'", position + 1)
            if close < 0:
                raise MiError("unexpected EOF while looking for matching `''")
            out.append(text[position + 1:close])
            quoted, position = True, close + 1
        elif char == '"':
            quoted = True
            position += 1
            while position < len(text) and text[position] != '"':
                if text[position] == "\\" and text[position + 1:position + 2] in ('"', "\\", "$", "`"):
                    position += 1
                out.append(text[position:position + 1])
                position += 1
            if position >= len(text):
                raise MiError('unexpected EOF while looking for matching `"\'')
            position += 1
        else:
            out.append(char)
            position += 1
    return "".join(out), position, quoted


def _redirection(text: str, position: int, fd: int | None, found: CommandLine, *, both: bool = False) -> int:
    """Read the operator at `position` and its target word; record it, return the end."""
    operator = text[position]
    position += 1
    mode = "r" if operator == "<" else "w"
    if operator == ">" and text[position:position + 1] == ">":
        mode, position = "a", position + 1
    copying = not both and text[position:position + 1] == "&"
    if copying:
        position += 1
    position = _skip_blanks(text, position)
    if position >= len(text) or text[position] in _SPECIAL:
        token = "newline" if position >= len(text) else text[position]
        raise MiError(f"syntax error near unexpected token `{token}'")
    target, end, _ = _word(text, position)
    descriptor = fd if fd is not None else (0 if operator == "<" else 1)
    if copying:
        if not _number(target):
            raise MiError(f"{target}: ambiguous redirect")
        found.redirections.append(Redirection(descriptor, copy_of=int(target)))
    else:
        found.redirections.append(Redirection(descriptor, target, mode))
        if both:  # `&> file`: stdout and stderr both to it
            found.redirections.append(Redirection(2, copy_of=1))
    return end
