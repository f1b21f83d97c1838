"""gdb's `$_gdb_setting("NAME")` and `$_gdb_setting_str("NAME")` (cli-cmds.c).

The settings belong to the front end, not to the engine's evaluator, so a call whose
argument is a string literal is replaced here, before the expression goes to the engine,
by the setting's value written as a literal of gdb's type for it: an int for a boolean (1,
0), an auto-boolean (1, 0, -1) or a number (unlimited: 0, or -1 where 0 is a number of its
own), an unsigned int for gdb's uinteger and zuinteger settings, a string for the others;
the _str form is always the string `show` gives. Any other argument reaches the engine,
which refuses it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.adapters.mi import settings_policy
from aliceserver.adapters.mi.registry import MiError
from aliceserver.regexes import compiled_later

if TYPE_CHECKING:
    from aliceserver.adapters.mi.program_queries import ProgramQueries

# `$_gdb_setting("...")` with a string literal without escapes as its only argument, else a
# string or character literal (left as it is)
_CALL_OR_LITERAL = compiled_later(r'\$(_gdb_setting(?:_str)?)\s*\(\s*"([^"\\]*)"\s*\)'
                              r'|"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')

# gdb's kinds of number settings besides int: unsigned (uinteger, zuinteger), and those
# where unlimited is -1 (zuinteger_unlimited); an integer's unlimited is 0 as well.
_UNSIGNED = frozenset(("height", "width", "print elements", "print repeats", "backtrace limit",
                       "input-radix", "output-radix"))
_MINUS_ONE_UNLIMITED = frozenset(("history size", "max-value-size", "max-completions"))
_AUTO_BOOLEAN = {"breakpoint pending": {"on": 1, "off": 0, "auto": -1}}


def expand_setting_calls(session: ProgramQueries, expression: str) -> str:
    """`expression` with each `$_gdb_setting[_str]("NAME")` outside a string or character
    literal replaced by the setting's value as a literal."""
    if "_gdb_setting" not in expression:
        return expression
    return _CALL_OR_LITERAL().sub(
        lambda found: _literal(session, found.group(1), found.group(2)) if found.group(1) else found.group(0), expression)


def _literal(session: ProgramQueries, function: str, name: str) -> str:
    """The setting's value as a C literal of gdb's type for it."""
    words = name.split()
    if words and words[0] in ("p", "pr"):  # gdb's aliases of `show print`
        words[0] = "print"
    own = _own_string(session, words)
    if own is not None:
        return _c_string(own)
    settings = session.settings
    words = settings_policy.canonical(settings, words) if words else words
    found = settings.find(words) if words else None
    if found is None or found[1]:
        if words:
            settings_policy.check_show(words)  # a gdb setting we do not implement: refused by name
        raise MiError(f"First argument of ${function} must be a valid setting of the 'show' command.")
    setting = found[0]
    value, kind = settings.get(setting), settings.kind(setting)
    if function == "_gdb_setting_str":
        return _c_string(value)
    if setting in _AUTO_BOOLEAN:
        return f"((int) {_AUTO_BOOLEAN[setting][value]})"
    if kind == "bool":
        return f"((int) {1 if value == 'on' else 0})"
    if kind == "int":
        if setting in _UNSIGNED:
            return f"((unsigned int) {0 if value == 'unlimited' else int(value)})"
        unlimited = -1 if setting in _MINUS_ONE_UNLIMITED else 0
        return f"((int) {unlimited if value == 'unlimited' else int(value)})"
    return _c_string(value)


def _own_string(session: ProgramQueries, words: list[str]) -> str | None:
    """The value of a setting kept outside Settings (all strings), else None."""
    inferior = session.inferior
    if words == ["args"]:
        return inferior.args_text if inferior.args_text is not None else " ".join(inferior.args)
    if words == ["cwd"]:
        return inferior.cwd_setting
    if words in (["inferior-tty"], ["tty"]):
        return inferior.tty or ""
    if words[:1] in (["language"], ["lang"]):
        return "auto"  # the only one we take
    return None


def _c_string(text: str) -> str:
    """A C string literal of `text` (octal escapes for what C cannot write as is)."""
    body = []
    for byte in text.encode("utf-8", "surrogateescape"):
        char = chr(byte)
        if char in '"\\':
            body.append("\\" + char)
        elif 32 <= byte < 127:
            body.append(char)
        else:
            body.append(f"\\{byte:03o}")
    return '"' + "".join(body) + '"'
