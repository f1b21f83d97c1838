"""gdb's empty line: a console UI's empty (or blank) line runs the last command typed
again (event-top.c handle_line_of_input, top.c's saved_command_line).

The commands gdb keeps from repeating (those calling dont_repeat: `run`, `delete`,
`display`, `file`, ...) leave nothing to repeat, even when they fail; `list` and `x` with
arguments repeat without them (set_repeat_arguments ("")) once they succeed, so a repeated
`list FILE:N` goes on with the next lines and a repeated `x/4x ADDR` with the next words.
Lines with the `server ` prefix are not kept; `dont-repeat` (in a user command's body)
forgets the line. Only a console's typed lines repeat: a command file, `-ex`, MI and
`-interpreter-exec` never do.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from aliceserver.errors import ProtocolError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.registry import CliRegistry, Context, Reply

# gdb 13's commands calling dont_repeat, as this registry names them
_NEVER = frozenset((
    "run", "start", "starti", "signal", "path", "attach", "detach", "disconnect", "interrupt",
    "core-file", "directory", "tstart", "delete", "display", "undisplay", "sharedlibrary",
    "target", "file", "symbol-file", "load", "add-symbol-file", "remove-symbol-file",
    "complete", "cd", "define", "define-prefix", "document", "commands", "while", "if",
    "python", "python-interactive", "guile", "new-ui",
))  # fmt: skip
# prefix commands whose subcommands (with arguments for `info line`) call dont_repeat
_NEVER_SUB = {
    "info": re.compile(r"li(?:ne?)?\s+\S"),
    "maintenance": re.compile(
        r"(?:print\s+(?:symbols|msymbols|objfiles|psymbols)|info\s+(?:symtabs|line-table))\b"
    ),
}
_WITHOUT_ARGUMENTS = frozenset(("list", "x"))
_COMMAND = re.compile(r"\s*([A-Za-z_][\w.-]*)(.*)", re.S)


class CommandRepeat:
    """The last line a console typed, as it repeats (gdb's saved_command_line)."""

    def __init__(self) -> None:
        self.saved = ""

    def line_to_run(self, line: str) -> str:
        """The command a typed LINE runs: the saved one for a blank line."""
        if not line.strip(" \t"):
            return self.saved
        if not line.startswith("server "):
            self.saved = line
        return line

    def after(self, registry: CliRegistry, line: str, succeeded: bool) -> None:
        """What a repeat of LINE runs now that it ran (or failed)."""
        if line is not self.saved and line != self.saved:
            return
        match = _COMMAND.match(line)
        try:
            found = registry.lookup(match.group(1)) if match else None
        except ProtocolError:  # (an ambiguous word: the command said so, nothing to repeat)
            found = None
        if match is None or found is None:
            return
        name, rest = found[0], match.group(2).strip()
        sub = _NEVER_SUB.get(name)
        if name in _NEVER or (sub is not None and sub.match(rest)):
            self.saved = ""
        elif succeeded and name in _WITHOUT_ARGUMENTS and _has_argument(name, rest):
            self.saved = line[: match.start(2)]


def _has_argument(name: str, rest: str) -> bool:
    """Whether the command was given its location (`x/FMT` alone has no address; `list -`
    and `list +` repeat as they are, going on backwards or forwards)."""
    if name == "x" and rest.startswith("/"):
        rest = rest.partition(" ")[2].strip()
    return bool(rest) and not (name == "list" and rest in ("+", "-"))


def dont_repeat(ctx: Context, text: str) -> Reply:
    """gdb's `dont-repeat` (for a user-defined command's body): nothing to repeat now."""
    del text
    ctx.session.repeat.saved = ""
    return None
