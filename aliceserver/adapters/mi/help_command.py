"""gdb's `help`: alone, its list of command classes; a name gdb has no command of, gdb's
error; `help set PREFIX` and `help info|target|unset|overlay`, gdb's text of those prefixes
and the list of their subcommands. aliceserver holds none of gdb's full documentation of a command or a class
(gdb's manual has it): asked for one, it says so by name. User-defined commands and
`help user-defined`: user_commands.help_text."""

from __future__ import annotations

from aliceserver.adapters.mi import console_targets, show_lists
from aliceserver.adapters.mi.aliases import UserAlias
from aliceserver.adapters.mi.prefix_lists import HEADS, ROWS
from aliceserver.adapters.mi.registry import Context, MiError

_TAIL = ('Type "apropos word" to search for commands related to "word".\n'
         'Type "apropos -v word" for full documentation of commands related to "word".\n'
         "Command name abbreviations are allowed if unambiguous.\n")

# gdb 13's classes of commands, as `help` lists them.
CLASSES = (
    ("aliases", "User-defined aliases of other commands."),
    ("breakpoints", "Making program stop at certain points."),
    ("data", "Examining data."),
    ("files", "Specifying and examining files."),
    ("internals", "Maintenance commands."),
    ("obscure", "Obscure features."),
    ("running", "Running the program."),
    ("stack", "Examining the stack."),
    ("status", "Status inquiries."),
    ("support", "Support facilities."),
    ("text-user-interface", "TUI is the GDB text based interface."),
    ("tracepoints", "Tracing of program execution without stopping the program."),
    ("user-defined", "User-defined commands."),
)
# Prefixes whose subcommands gdb's help lists and we hold (gdb's help_list).
_LISTED = {"info": "info", "i": "info", "inf": "info", "target": "target", "unset": "unset", "overlay": "overlay",
           "ov": "overlay", "ovly": "overlay"}


def class_list() -> str:
    rows = "".join(f"{name} -- {doc}\n" for name, doc in CLASSES)
    return (f"List of classes of commands:\n\n{rows}\n"
            'Type "help" followed by a class name for a list of commands in that class.\n'
            'Type "help all" for the list of all commands.\n'
            'Type "help" followed by command name for full documentation.\n' + _TAIL)


def help_text(ctx: Context, text: str) -> str:
    """What `help TEXT` prints (not a user-defined command's help), or gdb's error."""
    words = text.split()
    if not words:
        return class_list()
    first = words[0]
    if first == "set" and len(words) == 2:
        prefix = show_lists.prefix_name(words[1])
        if f"set {prefix}" in ROWS:
            return _documented(f"set {prefix}")
    if first in _LISTED and len(words) == 1:
        return _documented(_LISTED[first])
    classes = [name for name, _doc in CLASSES if name.startswith(first)]
    found = None if first in classes else ctx.session.cli_commands.lookup(first)  # gdb's ambiguity error
    if found is None and (classes or first == "all"):
        raise MiError(f'"help {text.strip()}" is not supported by aliceserver (gdb\'s manual has it).')
    if found is None:
        raise MiError(f'Undefined command: "{first}".  Try "help".')
    if len(words) == 1 and isinstance(found[1], UserAlias):
        documented = found[1].help_text(ctx, first)
        if documented is not None:
            return documented
    if found[0] in ("info", "show") and len(words) > 1:
        _subcommand(ctx, found[0], words[1])
    raise MiError(f'"help {text.strip()}" is not supported by aliceserver (gdb\'s manual has it).')


def _documented(prefix: str) -> str:
    """A prefix's help: its names and text, then its list of subcommands."""
    listed = show_lists.help_list(prefix) if prefix in ROWS else console_targets.subcommand_list(prefix)
    return HEADS[prefix] + listed


def _subcommand(ctx: Context, verb: str, word: str) -> None:
    """gdb's error for `help info|show WORD` where WORD names no subcommand."""
    if verb == "info":  # gdb's own info subcommands and their aliases
        known = {part.split()[1] for row in ROWS["info"] for part in row.split(" -- ")[0].split(", ")}
    else:
        known = {name.split()[0] for name in ctx.session.settings.names()}
        known |= {"commands", "convenience", "conv", "values", "version", "environment", "paths", "user",
                  "directories", "args", "cwd", "inferior-tty", "radix", "copying", "warranty", "configuration"}
    if not any(name.startswith(word) for name in known):
        raise MiError(f'Undefined {verb} command: "{word}".  Try "help {verb}".')


def apropos(ctx: Context, text: str) -> None:
    """gdb's apropos searches the documentation of every command, which we do not hold."""
    words = [word for word in text.split() if word != "-v"]
    if not words:
        raise MiError("REGEXP string is empty")
    raise MiError('"apropos" is not supported by aliceserver (gdb\'s manual has it).')
