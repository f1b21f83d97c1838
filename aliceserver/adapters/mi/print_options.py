"""print's and call's options (`print -elements 4 -pretty -- EXPR`, gdb's value print
option group): read only before a `--` word, as gdb's PROCESS_OPTIONS_REQUIRE_DELIMITER,
and applied as the `set print` settings of the same names for that one command. A setting
aliceserver refuses (or honours only at some values) is refused the same way here."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from aliceserver.adapters.mi import settings_policy
from aliceserver.adapters.mi.registry import MiError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.registry import Context

# gdb 13's value_print_option_defs: each a `print NAME` setting; booleans, else numbers
_BOOLEANS = ("address", "array", "array-indexes", "memory-tag-violations", "nibbles", "null-stop", "object",
             "pretty", "raw-values", "static-members", "symbol", "union", "vtbl")
_NUMBERS = ("elements", "max-depth", "repeats")
_NAMES = tuple(sorted(_BOOLEANS + _NUMBERS))
_TRUTHS = {"on": "on", "yes": "on", "enable": "on", "1": "on", "off": "off", "no": "off", "disable": "off",
           "0": "off"}  # fmt: skip


def split_print_options(text: str) -> tuple[list[tuple[str, str]], str]:
    """([(setting, value)], the rest) of print's arguments; no options without a `--`."""
    words = text.split()
    if not text.lstrip().startswith("-") or "--" not in words:
        return [], text
    options: list[tuple[str, str]] = []
    rest = text.lstrip()
    while True:
        word, _, after = rest.partition(" ")
        after = after.lstrip()
        if word == "--":
            return options, after
        name = _option_name(word, rest)
        value_word, _, beyond = after.partition(" ")
        if name in _NUMBERS:
            if value_word != "unlimited" and not value_word.isdigit():
                raise MiError(f"Expected integer at: {after}")
            options.append((f"print {name}", value_word))
            rest = beyond.lstrip()
        elif value_word.startswith("-"):  # `-pretty -elements 4` or `-pretty --`
            options.append((f"print {name}", "on"))
            rest = after
        else:
            if value_word.lower() not in _TRUTHS:
                raise MiError(f"Value given for `-{name}' is not a boolean: {value_word}")
            options.append((f"print {name}", _TRUTHS[value_word.lower()]))
            rest = beyond.lstrip()


def _option_name(word: str, rest: str) -> str:
    """The option `word` names, whole or a unique start (gdb's errors otherwise)."""
    if not word.startswith("-") or len(word) < 2:
        raise MiError(f"Unrecognized option at: {rest}")
    found = [name for name in _NAMES if name.startswith(word[1:])]
    if word[1:] in _NAMES:
        return word[1:]
    if len(found) > 1:
        raise MiError(f"Ambiguous option at: {rest}")
    if not found:
        raise MiError(f"Unrecognized option at: {rest}")
    return found[0]


@contextmanager
def print_options_applied(ctx: Context, options: list[tuple[str, str]]) -> Iterator[None]:
    """The session's settings as the options say while the command runs, then as before."""
    session = ctx.session
    settings = session.settings
    kept: list[tuple[str, str]] = []
    try:
        for name, value in options:
            words = [*name.split(), value]
            settings_policy.check_set(settings, words, running=session.inferior.process is not None)
            if settings.find(words) is None:  # not one of ours: refused by name
                settings_policy.check_show(name.split())
                raise MiError(f'The setting "{name}" is not supported by aliceserver.')
            kept.append((name, settings.get(name)))
            settings.set(name, value)
        if any(name in settings_policy.PRINT_LIMITS for name, _ in options):
            settings_policy.apply_print_limits(session)
        yield
    finally:
        for name, value in reversed(kept):
            settings.set(name, value)
        if any(name in settings_policy.PRINT_LIMITS for name, _ in kept):
            settings_policy.apply_print_limits(session)
