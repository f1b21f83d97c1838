"""gdb's preprocessor macro commands (`info macro`, `info macros`, `macro expand`, ...) for
a program without macro information (built without -g3), answered as gdb 13 answers
them there: no macro is defined, so an expansion is the text itself. A program that does
carry .debug_macro or .debug_macinfo is refused, its macros not being read here, and so is
`macro define` (gdb would then expand the user's macros in expressions)."""

from __future__ import annotations

import os

from aliceserver.adapters.mi.elf_sections import file_sections
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply

_LIST = (
    "List of macro subcommands:\n\n"
    "macro define -- Define a new C/C++ preprocessor macro.\n"
    "macro expand, macro exp -- Fully expand any C/C++ preprocessor macro invocations in EXPRESSION.\n"
    "macro expand-once, macro exp1 -- Expand C/C++ preprocessor macro invocations appearing directly"
    " in EXPRESSION.\n"
    "macro list -- List all the macros defined using the `macro define' command.\n"
    "macro undef -- Remove the definition of the C/C++ preprocessor macro with the given name.\n\n"
    'Type "help macro" followed by macro subcommand name for full documentation.\n'
    'Type "apropos word" to search for commands related to "word".\n'
    'Type "apropos -v word" for full documentation of commands related to "word".\n'
    "Command name abbreviations are allowed if unambiguous.\n"
)
_SUBCOMMANDS = ("define", "expand", "expand-once", "list", "undef")


def _check_no_macros(ctx: Context, command: str) -> None:
    program = ctx.session.inferior.program
    if not program:
        return
    path = os.path.join(ctx.session.inferior.cwd, os.path.expanduser(program))
    if any(s.name in (".debug_macro", ".debug_macinfo") for s in file_sections(path)):
        raise MiError(f'"{command}" of a program built with macro information (-g3) is not supported by aliceserver.')


def info_macro(ctx: Context, text: str) -> None:
    words = text.split()
    show_all = False
    while words and words[0].startswith("-"):
        option = words.pop(0)
        if option == "--":
            break
        if option not in ("-a", "-all"):
            raise MiError(f"Unrecognized option '{option}' to info macro command.  Try \"help info macro\".")
        show_all = True
    if not words:
        raise MiError("You must follow the `info macro' command with the name of the macro\n"
                      "whose definition you want to see.")
    _check_no_macros(ctx, "info macro")
    if not show_all:  # gdb's -a lists the definitions found, none here
        ctx.console(f"The symbol `{words[0]}' has no definition as a C/C++ preprocessor macro\n"
                    "at <user-defined>:-1\n")


def info_macros(ctx: Context, text: str) -> None:
    _check_no_macros(ctx, "info macros")
    if text.strip():
        ctx.console("GDB has no preprocessor macro information for that code.\n")


def _expand(ctx: Context, text: str) -> None:
    if not text.strip():
        raise MiError("You must follow the `macro expand' command with the expression you\nwant to expand.")
    _check_no_macros(ctx, "macro expand")
    ctx.console(f"expands to: {text.strip()}\n")


def _macro(ctx: Context, text: str) -> Reply:
    word, _, rest = text.strip().partition(" ")
    if not word:
        ctx.console(_LIST)
        return None
    name = {"exp": "expand", "exp1": "expand-once"}.get(word)
    if name is None:
        found = [n for n in _SUBCOMMANDS if n == word] or [n for n in _SUBCOMMANDS if n.startswith(word)]
        if len(found) != 1:
            raise MiError(f'Undefined macro command: "{text.strip()}".  Try "help macro".')
        name = found[0]
    if name == "expand":
        _expand(ctx, rest)
    elif name == "expand-once":
        raise MiError("Expand-once not implemented yet.")  # gdb 13's own answer
    elif name == "define":
        raise MiError('"macro define" is not supported by aliceserver.')
    return None  # list: no user macro is ever defined; undef: nothing to remove


def register(registry: CliRegistry) -> None:
    registry.add("macro", _macro)
