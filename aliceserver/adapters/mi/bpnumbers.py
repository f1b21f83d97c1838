"""Breakpoint numbers given as values (gdb's get_number_trailer): `disable $2 $$` takes
history values, `delete $foo` a convenience variable; each must be an integer."""

from __future__ import annotations

import re

from aliceserver.adapters.mi.registry import Context, MiError
from aliceserver.errors import AliceError
from aliceserver.regexes import compiled_later

_HISTORY = compiled_later(r"\$(\$?\d*)")  # $, $$, $N, $$N


def resolved(ctx: Context, words: list[str]) -> list[str]:
    """`words` with each `$...` replaced by the breakpoint number it holds."""
    return [_number(ctx, word) if word.startswith("$") else word for word in words]


def _number(ctx: Context, word: str) -> str:
    if word == "$bpnum":  # gdb's number of the last breakpoint set (save breakpoints' files)
        return str(ctx.session.breakpoints.next_number - 1)
    if _HISTORY().fullmatch(word) is None and not re.fullmatch(r"\$\w+", word):
        return word  # `$x-2` and the like: left for the caller to refuse
    number = value_of(ctx, word)
    if not number:
        raise MiError(f"Bad breakpoint number '{word}'")
    return str(number)


def value_of(ctx: Context, word: str) -> int:
    """gdb's get_number of `$...`: the integer it holds, 0 (after gdb's note) when it
    holds none."""
    history = _HISTORY().fullmatch(word) is not None
    try:
        info = ctx.session.evaluate(word)
    except AliceError as error:
        if history:
            raise MiError(str(error)) from None  # History has not yet reached $10.
        info = None
    try:
        number = int(info.value.split()[0], 0) if info is not None and not info.error else None
    except (ValueError, IndexError):
        number = None  # 1.5, a pointer, an unset variable (void)
    if number is None:
        ctx.console("History value must have integer type.\n" if history
                    else "Convenience variable must have integer value.\n")  # fmt: skip
    return number or 0
