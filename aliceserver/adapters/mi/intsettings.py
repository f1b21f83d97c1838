"""gdb 13's parse of a number setting's value (cli-setshow.c: parse_cli_var_uinteger,
parse_cli_var_zuinteger_unlimited, do_set_command's var_integer and var_zinteger): the value
is an expression (parse_and_eval_long), `unlimited` or any prefix of it where the kind has
it, 0 meaning unlimited for a uinteger or an integer, and gdb's range errors."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.registry import MiError
from aliceserver.regexes import compiled_later

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

INT_MAX = 2**31 - 1
UINT_MAX = 2**32 - 1
LONGEST_MAX = 2**63 - 1
_WITH_UNLIMITED = 'Argument required (integer to set it to, or "unlimited").'
_NOT_INTEGER = "Value can't be converted to integer."

# An expression's value as gdb's value_as_long reads it, or MiError.
Evaluator = Callable[[str], int]


def parse_setting(kind: str, text: str, evaluate: Evaluator | None) -> str:
    """The value `text` gives a setting of gdb's `kind` (uinteger, integer, zinteger,
    zuinteger_unlimited), as `show` writes it; without `evaluate` only literal numbers."""
    text = text.strip()
    if not text:
        raise MiError("Argument required (integer to set it to)." if kind == "zinteger" else _WITH_UNLIMITED)
    if kind != "zinteger" and _is_unlimited(text):
        return "unlimited"
    value = (evaluate or _literal)(text)
    if kind in ("uinteger", "integer") and value == 0:
        return "unlimited"
    if kind == "uinteger" and not 0 <= value < UINT_MAX:
        raise MiError(f"integer {value} out of range")
    if kind == "integer" and not -INT_MAX - 1 <= value < INT_MAX:
        raise MiError(f"integer {value} out of range")
    if kind == "zinteger" and not -INT_MAX - 1 <= value <= INT_MAX:
        raise MiError(f"integer {value} out of range")
    if kind == "zuinteger_unlimited":
        if value > INT_MAX:
            raise MiError(f"integer {value} out of range")
        if value < -1:
            raise MiError("only -1 is allowed to set as unlimited")
        if value == -1:
            return "unlimited"
    return str(value)


def _is_unlimited(text: str) -> bool:
    """gdb's is_unlimited_literal for a set command: the first word a prefix of `unlimited`,
    and nothing after it."""
    word, _, after = text.partition(" ")
    if not "unlimited".startswith(word):
        return False
    if after.strip():
        raise MiError(f'Junk after "{word}": {after.strip()}')
    return True


def _literal(text: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise MiError(f'No symbol "{text}" in current context.') from None


_NUMBER = compiled_later(r"-?(?:0x[0-9a-fA-F]+|\d+)")
_DECIMAL = compiled_later(r"-?(?:0|[1-9]\d*)")


def value_as_long(value: str, type_name: str) -> int:
    """gdb's value_as_long of a value as the formatter wrote it (output radix 10, 16 or 8):
    an integer, a character, a bool, a float truncated, a pointer's or function's address."""
    if value in ("true", "false"):
        return int(value == "true")
    if value in ("inf", "-inf"):
        return LONGEST_MAX if value == "inf" else -LONGEST_MAX - 1
    if value.startswith("{") and not type_name.endswith("]"):
        match = re.match(r"\{[^}]*\} (0x[0-9a-f]+)", value)  # a function: its address
        if match is None:
            raise MiError(_NOT_INTEGER)
        return int(match.group(1), 16)
    if value.startswith("("):  # a pointer: (type *) 0x...
        value = value.split(") ", 1)[-1]
    word = value.split()[0] if value.split() else ""
    if re.fullmatch(r"-?\d+\.\d*(e[-+]?\d+)?|-?\d+e[-+]?\d+", word):
        return int(float(word))
    if _NUMBER().fullmatch(word) is None:
        raise MiError(_NOT_INTEGER)
    digits = word.lstrip("-")
    if len(digits) > 1 and digits[0] == "0" and digits[1] in "01234567":
        number = int(digits, 8)  # the output radix's octal
    else:
        number = int(digits, 0)
    return -number if word.startswith("-") else number


def session_evaluator(session: MiSession) -> Evaluator:
    """parse_and_eval_long in the session's current frame (or statically)."""

    def evaluate(text: str) -> int:
        if _DECIMAL().fullmatch(text) and session.settings.get("input-radix") == "10":
            return int(text)  # what gdb's parse gives, without the engine (no probe started)
        info = session.evaluate(text)
        if info.error:
            raise MiError(info.value)
        if info.type.rstrip().endswith("]"):  # an array: its address (gdb's coerce_array)
            info = session.evaluate(f"&({text})[0]")
            if info.error:
                raise MiError(info.value)
        return value_as_long(info.value, info.type)

    return evaluate
