"""gdb's `alias [-a] [--] ALIAS = COMMAND [DEFAULT-ARGS...]`: ALIAS runs COMMAND with
DEFAULT-ARGS before the arguments it is given (`alias ab = break main`; `ab` is `break
main`). An alias of a subcommand (`alias set print el = set print elements`) is refused."""

from __future__ import annotations

from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply
from aliceserver.adapters.mi.user_commands import BUILTIN_PREFIXES
from aliceserver.regexes import compiled_later

_USAGE = "Usage: alias [-a] [--] ALIAS = COMMAND [DEFAULT-ARGS...]"
_NAME = compiled_later(r"[\w.-]+")  # gdb's valid_command_p


class UserAlias:
    """The command an alias runs: COMMAND and its default arguments."""

    def __init__(self, command: str, default_args: bool) -> None:
        self.command = command
        self.default_args = default_args
        self.doc: str | None = None  # `document ALIAS`'s text (else help shows the command's)

    def help_text(self, ctx: Context, name: str) -> str | None:
        """gdb's help of a documented alias: what it stands for, then its text."""
        if self.doc is None:
            return None
        word, _, args = self.command.partition(" ")
        found = ctx.session.cli_commands.lookup(word)
        full = found[0] if found is not None else word
        return f"  alias {name} = {full} {args.strip()}\n{self.doc}\n"

    def __call__(self, ctx: Context, text: str) -> Reply:
        from aliceserver.adapters.mi.console import run_console_command

        return run_console_command(ctx, f"{self.command} {text}".strip())


def _options(text: str) -> str:
    """`text` past gdb's alias options: `-a`s, then `--`. As gdb's option parser, a `--`
    anywhere ends the options, so every word before it must be one."""
    rest = text.strip()
    words = rest.split()
    ending = words.index("--") if "--" in words else None
    while rest:
        word = rest.split()[0]
        if word == "--":
            return rest[2:].strip()
        if word != "-a":
            if ending is None and not word.startswith("-"):
                return rest
            raise MiError(f"Unrecognized option at: {rest}")
        rest = rest[len(word) :].strip()
    return rest


def alias_command(ctx: Context, text: str) -> Reply:
    rest = _options(text)
    alias_text, equals, command_text = rest.partition("=")
    alias_words, command_words = alias_text.split(), command_text.split()
    if not equals or not alias_words:
        raise MiError(_USAGE)
    if not command_words:
        raise MiError('Undefined command: "".  Try "help".')
    for index, word in enumerate(alias_words):
        if _NAME().fullmatch(word) is None:
            raise MiError(f"Invalid command {'name' if index == 0 else 'element name'}: {word}")
    registry = ctx.session.cli_commands
    if command_words[0] not in registry.names():  # gdb's lookup_cmd_exact: no abbreviation
        raise MiError(f'Undefined command: "{command_words[0]}".  Try "help".')
    target = registry.lookup(command_words[0])
    if target is not None and isinstance(target[1], UserAlias) and target[1].default_args:
        raise MiError("Cannot define an alias of an alias that has default args")
    if len(alias_words) > 1:
        if len(alias_words) != len(command_words):
            raise MiError("Mismatched command length between ALIAS and COMMAND.")
        raise MiError('"alias" of a subcommand is not supported by aliceserver.')
    name = alias_words[0]
    found = registry.lookup(name) if name in registry.names() else None
    if found is not None:
        if found[0] == name and not isinstance(found[1], UserAlias):
            raise MiError(f"Alias {name} is the name of an existing command")
        raise MiError(f"Alias already exists: {name}")
    # words after a prefix command (`set print`) name its subcommand; after another, arguments
    default_args = len(command_words) > 1 and command_words[0] not in BUILTIN_PREFIXES
    registry.add(name, UserAlias(" ".join(command_words), default_args))
    return None


def register(registry: CliRegistry) -> None:
    registry.add("alias", alias_command)
