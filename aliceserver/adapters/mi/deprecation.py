"""gdb's `maintenance deprecate COMMAND ["REPLACEMENT"]` and `maintenance undeprecate`,
for a command or alias of one word: its next use warns, once, in gdb's words (the alias
as typed and the command it runs each deprecated or not), and `help` no longer lists a
deprecated alias. Subcommands (`set remote ...`) are refused, as `alias` refuses them."""

from __future__ import annotations

from dataclasses import dataclass

from aliceserver.adapters.mi.registry import Context, MiError

_USAGE = ('"maintenance deprecate" takes an argument,\nthe command you want to deprecate, and '
          "optionally the replacement command\nenclosed in quotes.\n")  # fmt: skip


@dataclass
class Deprecated:
    replacement: str | None
    warn: bool = True  # gdb's deprecated_warn_user: the next use warns, then no more


def _table(ctx: Context) -> dict[str, Deprecated]:
    return ctx.session.user_commands.deprecated


def deprecate(ctx: Context, text: str, on: bool) -> None:
    """`maintenance deprecate|undeprecate TEXT`."""
    text = text.strip()
    if not text:
        if on:
            ctx.console(_USAGE)
        return
    word, _, rest = text.partition(" ")
    replacement = None
    rest = rest.strip()
    if rest.startswith('"') and rest.endswith('"') and len(rest) > 1:
        replacement, rest = rest[1:-1], ""
    found = ctx.session.cli_commands.lookup(word)
    if found is None:  # gdb says so and goes on: no error
        ctx.console(f"Can't find command '{text}' to deprecate.\n")  # undeprecate's too
        return
    if rest:
        raise MiError('"maintenance deprecate" of a subcommand is not supported by aliceserver.')
    if on:
        _table(ctx)[word if _is_alias(ctx, word) else found[0]] = Deprecated(replacement or None)
    else:
        _table(ctx).pop(word if _is_alias(ctx, word) else found[0], None)


def _is_alias(ctx: Context, word: str) -> bool:
    from aliceserver.adapters.mi.aliases import UserAlias  # it imports the console

    found = ctx.session.cli_commands.lookup(word)
    return found is not None and (found[0] != word or isinstance(found[1], UserAlias))


def warn_if_deprecated(ctx: Context, word: str, name: str) -> None:
    """Before command `name`, typed as `word`: gdb's deprecated_cmd_warning."""
    table = _table(ctx)
    if not table:
        return
    from aliceserver.adapters.mi.aliases import UserAlias

    found = ctx.session.cli_commands.lookup(word)
    alias = table.get(word) if _is_alias(ctx, word) else None
    if found is not None and isinstance(found[1], UserAlias):
        name = found[1].command.split()[0]
    command = table.get(name)
    if not ((alias is not None and alias.warn) or (command is not None and command.warn)):
        return
    if not _is_alias(ctx, word):
        head = f"Warning: command '{name}' is deprecated.\n"
    elif command is not None:
        head = f"Warning: command '{name}' ({word}) is deprecated.\n"
    else:
        head = f"Warning: '{word}', an alias for the command '{name}', is deprecated.\n"
    chosen = command if command is not None else alias  # the command's replacement first
    replacement = chosen.replacement if chosen is not None else None
    ctx.console(head + (f"Use '{replacement}'.\n\n" if replacement else "No alternative known.\n\n"))
    for entry in (alias, command):
        if entry is not None:
            entry.warn = False


def hidden(ctx: Context, alias: str) -> bool:
    """A deprecated alias, which gdb's help no longer lists."""
    return alias in _table(ctx)
