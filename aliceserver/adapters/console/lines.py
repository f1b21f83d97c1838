"""Which debug-console lines are gdb commands and which are expressions, for the front ends
whose console evaluates expressions too (DAP's debug console, the agent's debug_console).

A line is a command when its first word names one (gdb's lookup, a unique prefix too)
unless what follows makes it an expression (`p - q`, `x = 3`, `c[2]`, `n.next`), or it is
a lone word that names a variable in scope (`n`, `s`). A leading backtick forces a command.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from aliceserver.adapters.console.hosted import HostedConsole

_WORD = re.compile(r"([A-Za-z_][\w-]*)(.*)", re.S)
# An operator then a space (or a member, index, call, assignment): an expression.
_OPERATOR = re.compile(r"(?:[-+*/%&|^<>=!]=?|&&|\|\||<<|>>|\?)\s|(?:\.|->|\[|\(|=)")


@dataclass(frozen=True, slots=True)
class Line:
    text: str  # without the backtick
    forced: bool  # a leading backtick: a command whatever it looks like


def read_line(line: str) -> Line:
    text = line.strip()
    if text.startswith("`"):
        return Line(text[1:].strip(), True)
    return Line(text, False)


def command_name(
    console: HostedConsole, line: Line, is_variable: Callable[[str], bool]
) -> str | None:
    """The gdb command `line` runs, or None when it is an expression."""
    if line.forced:
        return console.command_name(line.text) or ""  # "": gdb's error names the word
    match = _WORD.match(line.text)
    if match is None:
        return None
    word, rest = match.group(1), match.group(2)
    if rest and not rest[0].isspace() and rest[0] != "/":
        return None  # `n.next`, `c[2]`, `f(1)`, `x-1`
    rest = rest.strip()
    if rest and _OPERATOR.match(rest):
        return None  # `p - q`, `x = 3`, `bt + 1`: a variable named like a command
    name = console.command_name(line.text)
    if name is None or (not rest and is_variable(word)):
        return None
    return name
