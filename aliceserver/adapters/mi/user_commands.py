"""gdb's user-defined commands (cli-script.c): `define NAME` ... `end` with `$argc` and
`$arg0`... substituted in its lines, `document NAME` ... `end`, `define-prefix`, `show user`,
`help NAME` and `help user-defined`, and the hooks `hook-NAME` / `hookpost-NAME` (with
`hook-stop`, run before a stop is shown).

A definition's lines are read as `commands` reads them: typed (with gdb's `>` prompt), from a
command file or -x script (scripts.py hands them over), or as a block of a list being run.
A user command runs its lines as gdb runs them (from_tty off, each command to its stop).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aliceserver.adapters.gdbcommands.breakpoint_scripts import indented, read_block
from aliceserver.adapters.gdbcommands.control_flow import parse, run_list
from aliceserver.adapters.mi.control_commands import SessionHooks, typed_block
from aliceserver.adapters.mi.deprecation import Deprecated
from aliceserver.adapters.mi.queries import confirm
from aliceserver.adapters.mi.registry import (
    EXIT,
    CliRegistry,
    Context,
    MiError,
    Reply,
    ambiguous_names,
)
from aliceserver.regexes import compiled_later

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

MAX_USER_CALL_DEPTH = 1024  # gdb's max-user-call-depth
DEFAULT_DOC = "User-defined."
_VALID_NAME_CHAR = compiled_later(r"[\w\-.]")  # gdb's valid_cmd_char_p
_HELP_TAIL = (
    'Type "apropos word" to search for commands related to "word".\n'
    'Type "apropos -v word" for full documentation of commands related to "word".\n'
    "Command name abbreviations are allowed if unambiguous.\n"
)
NextLine = Callable[[], str | None]
# gdb's built-in prefix commands we have, under which `define PREFIX NAME` puts a user command
BUILTIN_PREFIXES = frozenset({"info", "show", "set", "maintenance", "thread", "frame", "catch", "tcatch",
                              "delete", "disable", "enable", "unset"})


@dataclass
class UserCommand:
    name: str
    prefix_name: str = ""  # "mycmds " for a subcommand of the user prefix `mycmds`
    lines: tuple[str, ...] | None = None  # None: only define-prefix made it
    doc: str = DEFAULT_DOC
    subcommands: dict[str, UserCommand] | None = None  # a prefix command's
    builtin: bool = False  # a built-in prefix (`info`...) holding user subcommands, not one itself

    @property
    def full_name(self) -> str:
        return self.prefix_name + self.name


@dataclass
class UserCommands:
    """One session's user commands (top level; a prefix holds its own) and the state of
    running them."""

    top: dict[str, UserCommand] = field(default_factory=dict)
    under_builtin: dict[str, UserCommand] = field(default_factory=dict)  # "info" -> its user subcommands
    depth: int = 0  # user commands being run, one inside another
    args_stack: list[list[str]] = field(default_factory=list)  # theirs, innermost last (gdb's user_args)
    deprecated: dict[str, Deprecated] = field(default_factory=dict)  # by command or alias name (deprecation.py)
    hooks_running: set[str] = field(default_factory=set)  # the commands whose hook runs now


def _table(ctx: Context) -> UserCommands:
    return ctx.session.user_commands


# --- arguments ---------------------------------------------------------------------------------
def split_arguments(text: str) -> list[str]:
    """gdb's user_args: blank-separated words, quotes and backslashes keep blanks inside."""
    args: list[str] = []
    index = 0
    while index < len(text):
        while index < len(text) and text[index] in " \t":
            index += 1
        start = index
        squote = dquote = escaped = False
        while index < len(text):
            char = text[index]
            if char in " \t" and not (squote or dquote or escaped):
                break
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif squote:
                squote = char != "'"
            elif dquote:
                dquote = char != '"'
            else:
                squote, dquote = char == "'", char == '"'
            index += 1
        args.append(text[start:index])
    return args


_ARG = compiled_later(r"\$arg(c|\d+)?")


def insert_arguments(line: str, args: list[str]) -> str:
    """gdb's insert_args: `$argc` the count, `$argN` the Nth word (missing: an error)."""

    def substitute(match: re.Match[str]) -> str:
        which = match.group(1)
        if which is None:
            return match.group(0)
        if which == "c":
            return str(len(args))
        number = int(which)
        if number >= len(args):
            raise MiError(f"Missing argument {number} in user function.")
        return args[number]

    return _ARG().sub(substitute, line)


def insert_current_arguments(ctx: Context, line: str) -> str:
    """gdb's insert_user_defined_cmd_args: the innermost running user command's `$argc`
    and `$argN` in `line` (eval's text, made after that command's own substitution)."""
    stack = _table(ctx).args_stack
    return insert_arguments(line, stack[-1]) if stack else line


class UserCommandHooks(SessionHooks):
    """A user command's lines, run with its arguments in them."""

    def __init__(self, ctx: Context, args: list[str]) -> None:
        super().__init__(ctx, breakpoint_list=False)
        self.args = args

    def run(self, line: str) -> bool:
        return super().run(insert_arguments(line, self.args))

    def truth(self, expression: str) -> bool:
        return super().truth(insert_arguments(expression, self.args))

    def block(self, head: str, lines: tuple[str, ...]) -> bool:
        return super().block(insert_arguments(head, self.args), lines)


# --- running -----------------------------------------------------------------------------------
def _invoke(command: UserCommand) -> Callable[[Context, str], Reply]:
    def handler(ctx: Context, text: str) -> Reply:
        return run_user_command(ctx, command, text)

    return handler


def run_user_command(ctx: Context, command: UserCommand, text: str) -> Reply:
    if command.subcommands is not None and text.split():
        word, _, rest = text.partition(" ")
        found = _lookup_sub(command, word)
        if found is not None:
            return run_user_command(ctx, found, rest.strip())
        if command.lines is None:
            raise MiError(f'Undefined {command.full_name} command: "{word}".  Try "help {command.full_name}".')
    if command.lines is None:  # a prefix with no lines of its own: gdb lists its subcommands
        ctx.console(f'"{command.full_name}" must be followed by the name of a subcommand.\n')
        ctx.console(_subcommand_list(command))
        return None
    table = _table(ctx)
    if table.depth >= MAX_USER_CALL_DEPTH:
        raise MiError("Max user call depth exceeded -- command aborted.")
    inner = dataclasses.replace(ctx, from_tty=False, extra={})
    hooks = UserCommandHooks(inner, split_arguments(text))
    table.depth += 1
    table.args_stack.append(hooks.args)
    try:
        run_list(parse(command.lines), hooks)
    except RecursionError:  # Python's stack ends before gdb's max-user-call-depth
        raise MiError("Max user call depth exceeded -- command aborted.") from None
    finally:
        table.depth -= 1
        table.args_stack.pop()
    return EXIT if hooks.exited else None


def builtin_subcommand(ctx: Context, prefix: str, text: str) -> tuple[UserCommand, str] | None:
    """The user command `define PREFIX NAME` made that `PREFIX TEXT` runs, with its
    arguments; None when TEXT's first word names none (exactly: an abbreviation stays the
    built-in's, which we cannot weigh against gdb's list of PREFIX's subcommands)."""
    owner = _table(ctx).under_builtin.get(prefix)
    if owner is None or not text:
        return None
    word, _, rest = text.partition(" ")
    found = (owner.subcommands or {}).get(word)
    return None if found is None else (found, rest.strip())


def _lookup_sub(command: UserCommand, word: str) -> UserCommand | None:
    subs = command.subcommands or {}
    if word in subs:
        return subs[word]
    matches = [name for name in subs if name.startswith(word)]
    if len(matches) > 1:
        raise MiError(f'Ambiguous {command.full_name} command "{word}": {ambiguous_names(sorted(matches))}.')
    return subs[matches[0]] if matches else None


def with_hooks(ctx: Context, name: str, run: Callable[[], Reply]) -> Reply:
    """Command `name` run between its user hooks (hook-NAME before, hookpost-NAME after)."""
    table = _table(ctx)
    if not table.top:
        return run()
    _run_hook(ctx, table, name, "hook-")
    reply = run()
    _run_hook(ctx, table, name, "hookpost-")
    return reply


def _run_hook(ctx: Context, table: UserCommands, hooked: str, kind: str) -> None:
    command = table.top.get(kind + hooked)
    if command is None or command.lines is None or hooked in table.hooks_running:
        return
    table.hooks_running.add(hooked)  # gdb's hook_in: the command's own hooks stay quiet meanwhile
    try:
        run_user_command(ctx, command, "")
    finally:
        table.hooks_running.discard(hooked)


def run_stop_hook(session: MiSession) -> None:
    """gdb's normal_stop: `hook-stop` runs before the stop is shown (after an exit's line);
    its error is shown and the stop goes on."""
    table = session.user_commands
    if "hook-stop" not in table.top:
        return
    ui = session.origin.ui if session.origin is not None else next((ui for ui in session.uis if not ui.closed), None)
    if ui is None:
        return
    ctx = Context(session, ui, "", None, cli=True, from_tty=False)
    try:
        _run_hook(ctx, table, "stop", "hook-")
    except MiError as error:
        ctx.log(f"Error while running hook_stop:\n{error}\n")


# --- defining ----------------------------------------------------------------------------------
def _place(ctx: Context, text: str) -> tuple[dict[str, UserCommand] | None, str, str]:
    """gdb's validate_comname: the table the last word goes in (None: the top level), the
    name, and its prefix's words with a blank."""
    text = text.strip()
    if not text:
        raise MiError("Argument required (name of command to define).")
    *prefix_words, name = text.split()
    subs: dict[str, UserCommand] | None = None
    prefix_name = ""
    if prefix_words:
        prefix = " ".join(prefix_words)
        owner = _table(ctx).top.get(prefix_words[0]) or _builtin_prefix(ctx, prefix_words[0])
        if owner is not None and owner.builtin:
            prefix_words[0] = owner.name
            prefix = " ".join(prefix_words)
        for word in prefix_words[1:]:
            found = (owner.subcommands or {}).get(word) if owner is not None else None
            if found is None and owner is not None and owner.builtin:  # `set print`: gdb's own prefix
                raise MiError(f'User commands under "{prefix}" are not supported by aliceserver.')
            owner = found
        if owner is None:
            if ctx.session.cli_commands.lookup(prefix_words[0]) is None:
                raise MiError(f'Undefined command: "{prefix_words[0]}".  Try "help".')
            raise MiError(f'"{prefix}" is not a prefix command.')
        if owner.subcommands is None:
            raise MiError(f'"{prefix}" is not a prefix command.')
        subs, prefix_name = owner.subcommands, prefix + " "
    junk = next((i for i, char in enumerate(name) if not _VALID_NAME_CHAR().match(char)), None)
    if junk is not None:
        raise MiError(f'Junk in argument list: "{name[junk:]}"')
    return subs, name, prefix_name


def _builtin_prefix(ctx: Context, word: str) -> UserCommand | None:
    """The holder of the user subcommands of the built-in prefix `word` names (`i`: info)."""
    found = ctx.session.cli_commands.lookup(word)
    if found is None or found[0] not in BUILTIN_PREFIXES or found[0] in _table(ctx).top:
        return None
    holders = _table(ctx).under_builtin
    if found[0] not in holders:
        holders[found[0]] = UserCommand(found[0], subcommands={}, builtin=True)
    return holders[found[0]]


def _builtin(ctx: Context, name: str) -> bool:
    return name in ctx.session.cli_commands.names() and name not in _table(ctx).top


def define(ctx: Context, text: str, body: Callable[[], tuple[str, ...]]) -> None:
    """gdb's do_define_command: checked and confirmed before its lines are read."""
    table = _table(ctx)
    subs, name, prefix_name = _place(ctx, text)
    known = (subs if subs is not None else table.top).get(name)
    refused = f'Command "{name}" not redefined.'
    if known is not None:
        if known.subcommands is not None and known.lines is not None:
            confirm(ctx, f'Keeping subcommands of prefix command "{name}".\nRedefine command "{name}"? ', refused)
        elif known.subcommands is None:
            confirm(ctx, f'Redefine command "{name}"? ', refused)
    elif subs is None and _builtin(ctx, name):
        confirm(ctx, f'Really redefine built-in command "{name}"? ', refused)
    for hook in ("hook-", "hookpost-"):
        hooked = name[len(hook):]
        if subs is None and name.startswith(hook) and hooked != "stop" \
                and hooked not in ctx.session.cli_commands.names() and hooked not in table.top:
            ctx.log(f"warning: Your new `{name}' command does not hook any existing command.\n")
            confirm(ctx, "Proceed? ")
            break
    if ctx.from_tty and ctx.ui.reads_terminal():  # gdb's input_interactive_p
        ctx.console(f'Type commands for definition of "{prefix_name}{name}".\n'
                    'End with a line saying just "end".\n')
    lines = tuple(line for line in body() if not line.startswith("#"))
    command = UserCommand(name, prefix_name, lines, known.doc if known is not None else DEFAULT_DOC,
                          known.subcommands if known is not None else None)
    if subs is not None:
        subs[name] = command
        return
    table.top[name] = command
    ctx.session.cli_commands.add(name, _invoke(command))


def define_prefix(ctx: Context, text: str) -> Reply:
    table = _table(ctx)
    subs, name, prefix_name = _place(ctx, text)
    place = subs if subs is not None else table.top
    known = place.get(name)
    if known is None and subs is None and _builtin(ctx, name):
        raise MiError(f'Command "{text.strip()}" is built-in.')
    if known is None:
        known = place[name] = UserCommand(name, prefix_name)
        if subs is None:
            ctx.session.cli_commands.add(name, _invoke(known))
    if known.subcommands is None:
        known.subcommands = {}
    return None


def _find(ctx: Context, text: str) -> UserCommand | None:
    """The user command `text` names (an abbreviation of its words as gdb allows)."""
    words = text.split()
    if not words:
        return None
    found = ctx.session.cli_commands.lookup(words[0])
    if found is None:
        raise MiError(f'Undefined command: "{words[0]}".  Try "help".')
    table = _table(ctx)
    command = table.top.get(found[0]) or table.under_builtin.get(found[0])
    for word in words[1:]:
        if command is None or command.subcommands is None:
            break
        sub = _lookup_sub(command, word)
        if sub is None and command.builtin:
            return None  # one of gdb's own subcommands
        if sub is None:
            raise MiError(f'Undefined {command.full_name} command: "{word}".  Try "help {command.full_name}".')
        command = sub
    return None if command is not None and command.builtin else command


def _document_alias(ctx: Context, name: str, handler: object, body: Callable[[], tuple[str, ...]]) -> bool:
    """`document ALIAS` (True): a user's alias takes the text, a built-in one is gdb's error."""
    from aliceserver.adapters.mi.aliases import UserAlias

    if ctx.session.cli_commands.is_alias(name):
        raise MiError(f'Alias "{name}" is built-in.')
    if not isinstance(handler, UserAlias):
        return False
    if ctx.from_tty and ctx.ui.reads_terminal():  # gdb's input_interactive_p
        ctx.console(f'Type documentation for "{name}".\nEnd with a line saying just "end".\n')
    handler.doc = "\n".join(body())
    return True


def document(ctx: Context, text: str, body: Callable[[], tuple[str, ...]]) -> None:
    name = text.strip()
    if not name:
        raise MiError("Argument required (name of command to define).")
    _place(ctx, name)
    words = name.split()
    found = ctx.session.cli_commands.lookup(words[0])
    if found is None:
        raise MiError(f'Undefined command: "{words[0]}".')
    if len(words) == 1 and _document_alias(ctx, name, found[1], body):
        return
    command = _find(ctx, name)
    if command is None:
        raise MiError(f'Command "{name}" is built-in.')
    if ctx.from_tty and ctx.ui.reads_terminal():  # gdb's input_interactive_p
        ctx.console(f'Type documentation for "{name}".\nEnd with a line saying just "end".\n')
    command.doc = "\n".join(body())


def _verbatim_lines(next_line: NextLine) -> tuple[str, ...]:
    """A `document` block: lines as written (trailing blanks dropped) up to `end`."""
    lines: list[str] = []
    while (line := next_line()) is not None and line.strip() != "end":
        lines.append(line.rstrip(" \t\r\n"))
    return tuple(lines)


def defining_block(ctx: Context, head: str, lines: tuple[str, ...]) -> bool:
    """A `define`/`document` block met in a list being run (True: it was one)."""
    word, _, rest = head.strip().partition(" ")
    given = iter(lines)
    if word == "define":
        define(ctx, rest, lambda: lines)
    elif word == "document":
        document(ctx, rest, lambda: _verbatim_lines(lambda: next(given, None)))
    else:
        return False
    return True


def read_definition(ctx: Context, line: str, next_line: NextLine) -> bool:
    """A command file's `define`/`document` line (True), its block read from the file."""
    word, _, rest = line.strip().partition(" ")
    if word == "define":
        define(ctx, rest, lambda: read_block(next_line))
    elif word == "document":
        document(ctx, rest, lambda: _verbatim_lines(next_line))
    else:
        return False
    return True


def _typed(ctx: Context) -> NextLine:
    session = ctx.session

    def next_line() -> str | None:
        ctx.console(">")
        return session.read_more(ctx.ui)

    return next_line


def _define_command(ctx: Context, text: str) -> Reply:
    define(ctx, text, lambda: typed_block(ctx, 0))
    return None


def _document_command(ctx: Context, text: str) -> Reply:
    document(ctx, text, lambda: _verbatim_lines(_typed(ctx)))
    return None


# --- showing -----------------------------------------------------------------------------------
def _walk(commands: dict[str, UserCommand]) -> Iterator[UserCommand]:
    for name in sorted(commands):
        command = commands[name]
        if not command.builtin:
            yield command
        if command.subcommands is not None:
            yield from _walk(command.subcommands)


def _every(table: UserCommands) -> dict[str, UserCommand]:
    """The top-level user commands and the built-in prefixes holding some, by name."""
    return {**{name: holder for name, holder in table.under_builtin.items() if holder.subcommands}, **table.top}


def _shown(command: UserCommand) -> str:
    """gdb's show_user_1: the command's lines, then its subcommands'."""
    kind = "prefix" if command.subcommands is not None else ""
    out = "" if command.builtin else f'User {kind}command "{command.full_name}":\n'
    if command.lines:
        out += indented(command.lines, 1) + "\n"
    for sub in sorted((command.subcommands or {}).values(), key=lambda c: c.name):
        out += _shown(sub)
    return out


def _show_user(ctx: Context, text: str) -> Reply:
    if text.strip():
        command = _find(ctx, text)
        if command is None:
            raise MiError("Not a user command.")
        ctx.console(_shown(command))
        return None
    table = _table(ctx)
    every = _every(table)
    ctx.console("".join(_shown(every[name]) for name in sorted(every)))
    return None


def _first_line(doc: str) -> str:
    return doc.split("\n", 1)[0]


def _subcommand_list(command: UserCommand) -> str:
    rows = "".join(f"{sub.full_name} -- {_first_line(sub.doc)}\n" for sub in _walk(command.subcommands or {}))
    return (f"List of {command.full_name} subcommands:\n\n{rows}\n"
            f'Type "help {command.full_name}" followed by {command.full_name} subcommand name '
            f"for full documentation.\n{_HELP_TAIL}")


def help_text(ctx: Context, text: str) -> str | None:
    """`help user-defined` and `help NAME` of a user command; None: neither (the console's
    own help answers)."""
    table = _table(ctx)
    words = text.split()
    if words and "user-defined".startswith(words[0]) and len(words[0]) >= 2 and len(words) == 1:
        rows = "".join(f"{command.full_name} -- {_first_line(command.doc)}\n" for command in _walk(_every(table)))
        return ("User-defined commands.\nThe commands in this class are those defined by the user.\n"
                'Use the "define" command to define a command.\n\nList of commands:\n\n'
                f'{rows}\nType "help" followed by command name for full documentation.\n{_HELP_TAIL}')
    if not words or not _every(table):
        return None
    from aliceserver.adapters.mi.aliases import UserAlias  # it imports this module

    found = ctx.session.cli_commands.lookup(words[0])
    if found is not None and found[0] == words[0] and isinstance(found[1], UserAlias):
        text = found[1].command.split()[0]  # an alias's help is its command's
    try:
        command = _find(ctx, text)
    except MiError:
        return None
    if command is None:
        return None
    if command.subcommands is None:
        return _aliases_heading(ctx, command) + command.doc + "\n"
    return f"{command.doc}\n\n{_subcommand_list(command)}"


def _aliases_heading(ctx: Context, command: UserCommand) -> str:
    """gdb's help of a command with aliases: its name and theirs (the newest first), then
    each alias with default arguments written out."""
    from aliceserver.adapters.mi.aliases import UserAlias  # it imports this module

    if command.prefix_name:
        return ""
    aliases = [(name, handler) for name, handler in reversed(ctx.session.cli_commands.items())
               if isinstance(handler, UserAlias) and handler.command.split()[0] == command.name
               and name not in _table(ctx).deprecated]  # fmt: skip
    if not aliases:
        return ""
    written = "".join(f"  alias {name} = {alias.command}\n" for name, alias in aliases if alias.default_args)
    return f"{command.name}, {', '.join(name for name, _alias in aliases)}\n{written}"


def register(registry: CliRegistry) -> None:
    registry.add("define", _define_command)
    registry.add("document", _document_command)
    registry.add("define-prefix", define_prefix)


def show_user(ctx: Context, text: str) -> Reply:
    """`show user [NAME]` (the console's `show` hands it over)."""
    return _show_user(ctx, text)
