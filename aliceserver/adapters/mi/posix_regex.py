"""gdb's regular expressions in Python's `re`: POSIX extended ones (regcomp REG_EXTENDED:
`skip -rfunction`) and GNU basic ones (re_comp: `thread find`), with glibc's words for
the errors gdb reports."""

from __future__ import annotations

import re

# Python's complaint -> glibc's regerror text for the same mistake
_GLIBC_WORDS = (
    ("missing )", "Unmatched ( or \\("),
    ("unbalanced parenthesis", "Unmatched ) or \\)"),
    ("unterminated character set", "Unmatched [ or [^"),
    ("nothing to repeat", "Invalid preceding regular expression"),
    ("multiple repeat", "Invalid preceding regular expression"),
    ("bad escape (end of pattern)", "Trailing backslash"),
)
_BRE_OPERATORS = {"(": "(", ")": ")", "|": "|", "{": "{", "}": "}", "+": "+", "?": "?"}


class RegexError(Exception):
    """A pattern regcomp refuses; the message is glibc's."""


def extended(pattern: str) -> re.Pattern[str]:
    """A POSIX extended regular expression (a lone `)` is a literal there)."""
    return _compiled(_lone_closers(pattern))


def basic(pattern: str) -> re.Pattern[str]:
    """A GNU basic regular expression: `\\(`, `\\|`, `\\{` are operators, `(` `|` `+` `?`
    literals, `*` first is a literal."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append(_BRE_OPERATORS.get(nxt, "\\" + nxt))
            i += 2
            continue
        if ch == "[":
            end = _bracket_end(pattern, i)
            out.append(_bracket(pattern[i:end]))
            i = end
            continue
        if ch in _BRE_OPERATORS or (ch == "*" and (not out or out[-1] in ("(", "|", "^"))):
            out.append("\\" + ch)
        else:
            out.append(ch)
        i += 1
    return _compiled("".join(out))


# POSIX character classes, as Python's set syntax writes them
_CLASSES = {
    "alpha": "a-zA-Z", "digit": "0-9", "alnum": "0-9A-Za-z", "upper": "A-Z", "lower": "a-z",
    "space": " \\t\\n\\r\\f\\v", "blank": " \\t", "xdigit": "0-9A-Fa-f", "cntrl": "\\x00-\\x1f\\x7f",
    "print": "\\x20-\\x7e", "graph": "\\x21-\\x7e", "punct": "!-/:-@\\[-`{-~",
}  # fmt: skip


def _bracket(expression: str) -> str:
    """A POSIX bracket expression in Python's syntax: `[:digit:]` and the other classes
    expanded, a backslash and a `[` literal there (not an escape, not a nested set)."""
    if not expression.endswith("]") or len(expression) < 2:
        return expression  # unterminated: re reports it
    body, out = expression[1:-1], ["["]
    i = 0
    if body.startswith("^"):
        out.append("^")
        i = 1
    if body[i : i + 1] == "]":  # a `]` first is a member
        out.append("\\]")
        i += 1
    while i < len(body):
        if body.startswith("[:", i) and ":]" in body[i + 2 :]:
            end = body.index(":]", i + 2)
            name = body[i + 2 : end]
            if name not in _CLASSES:
                raise RegexError("Invalid character class name")
            out.append(_CLASSES[name])
            i = end + 2
            continue
        ch = body[i]
        out.append("\\" + ch if ch in "\\[" else ch)
        i += 1
    return "".join(out) + "]"


def _bracket_end(pattern: str, start: int) -> int:
    """Past the `]` closing the bracket expression at `start` (`[]a]`, `[^]a]` hold a `]`)."""
    i = start + 1
    if i < len(pattern) and pattern[i] == "^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1
    while i < len(pattern) and pattern[i] != "]":
        if pattern.startswith("[:", i) and ":]" in pattern[i + 2 :]:  # a class's `]` ends no set
            i = pattern.index(":]", i + 2) + 1
        i += 1
    return min(i + 1, len(pattern))


def _lone_closers(pattern: str) -> str:
    """`)` with no `(` open before it escaped, as glibc's ERE reads it."""
    out: list[str] = []
    depth = 0
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if ch == "[":
            end = _bracket_end(pattern, i)
            out.append(_bracket(pattern[i:end]))
            i = end
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                ch = "\\)"
            else:
                depth -= 1
        out.append(ch)
        i += 1
    return "".join(out)


def _compiled(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as error:
        message = str(error.msg)
        words = next((glibc for python, glibc in _GLIBC_WORDS if message.startswith(python)), None)
        raise RegexError(words or "Invalid regular expression") from None
