"""gdb's prefix commands of settings typed alone: `set PREFIX` lists its subcommands (gdb's
help_list), `show PREFIX` shows each setting under it as `NAME:  its show line` (gdb's
cmd_show_list), `show` and `info set` every one, and `info` lists its subcommands.

`show` lists the settings aliceserver has: a gdb setting it refuses has no value here to show."""

from __future__ import annotations

from collections.abc import Callable

from aliceserver.adapters.mi.registry import Context, MiError
from aliceserver.adapters.mi.settings_policy import REFUSED

_HELP_TAIL = ('Type "apropos word" to search for commands related to "word".\n'
              'Type "apropos -v word" for full documentation of commands related to "word".\n'
              "Command name abbreviations are allowed if unambiguous.\n")
_ALIASES = {"p": "print", "pr": "print", "c": "check", "ch": "check"}  # gdb's aliases of set/show prefixes
# `show` subcommands that are no settings of ours but gdb's `show` lists (console.py shows them).
_OTHER_SHOWS = ("args", "convenience", "cwd", "directories", "environment", "inferior-tty", "paths", "radix",
                "user")


def help_list(prefix: str) -> str:
    from aliceserver.adapters.mi.prefix_lists import ROWS  # gdb's lists: read when one is asked for

    rows = "".join(row + "\n" for row in ROWS[prefix])
    return (f"List of {prefix} subcommands:\n\n{rows}\n"
            f'Type "help {prefix}" followed by {prefix} subcommand name for full documentation.\n{_HELP_TAIL}')


def prefix_name(word: str) -> str:
    """The prefix of settings `word` names, by gdb's aliases too."""
    return _ALIASES.get(word, word)


def _prefix(words: list[str]) -> str | None:
    """The prefix of settings `words` (one word) names; None: another."""
    return prefix_name(words[0]) if len(words) == 1 else None


def set_prefix(ctx: Context, text: str) -> bool:
    """`set PREFIX` alone: gdb's list of its subcommands (True); False: another `set`."""
    from aliceserver.adapters.mi.prefix_lists import ROWS

    prefix = _prefix(text.split())
    if prefix is None or f"set {prefix}" not in ROWS:
        return False
    ctx.console(help_list(f"set {prefix}"))
    return True


def show_prefix(ctx: Context, text: str, names: list[str], show: Callable[[Context, str], object]) -> bool:
    """`show` alone or `show PREFIX` of our settings `names`: each one's show line after
    its name (True); False: another `show`. `show` shows one setting."""
    words = text.split()
    if words:
        prefix = _prefix(words)
        if prefix is None or prefix in names or prefix in REFUSED:  # remote, style: refused as a whole
            return False
        shown = sorted(name for name in names if name.startswith(prefix + " "))
        if not shown:
            return False
    else:
        shown = sorted({*names, *_OTHER_SHOWS})
    for name in shown:
        ctx.console(f"{name}:  ")
        try:
            show(ctx, name)
        except MiError as error:  # gdb's error ends its list: ours goes on past one
            ctx.log(f"{error}\n")
    return True


def info_alone(ctx: Context) -> None:
    ctx.console(help_list("info"))
