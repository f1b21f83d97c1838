"""Names quoted in linespecs: `break 'c d'`, `list 'operator new'`, `info scope "f"`.

gdb's linespec lexer takes a quoted name as one token without its quotes, so its errors
name the function bare (`Function "c d" not defined.`)."""

from __future__ import annotations

_QUOTES = "'\""


def unquoted(name: str) -> str:
    """`name` without the one pair of quotes around the whole of it, if it has them."""
    if len(name) >= 2 and name[0] in _QUOTES and name[-1] == name[0]:
        return name[1:-1]
    return name
