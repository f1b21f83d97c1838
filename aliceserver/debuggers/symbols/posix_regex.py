"""POSIX basic regular expressions (GNU flavour) as Python patterns.

gdb compiles the regexes of `info functions`, `-symbol-info-*` and `info sources` with
regcomp without REG_EXTENDED: `(`, `+`, `?`, `|` and `{` are ordinary characters there,
while `\\(`, `\\+`, `\\?`, `\\|` and `\\{` are the operators. Passing the text to `re` as it is
would make `info functions operator()` an error and `f\\|g` a literal.
"""

from __future__ import annotations

import re

_CLASSES = {
    "alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
    "space": r" \t\n\r\f\v", "blank": r" \t", "punct": r"!-/:-@\[-`{-~", "xdigit": "0-9A-Fa-f",
    "cntrl": r"\x00-\x1f\x7f", "print": r"\x20-\x7e", "graph": r"\x21-\x7e",
}  # fmt: skip
_INTERVAL = re.compile(r"\d+(?:,\d*)?")
_OPERATORS = {"(": "(", ")": ")", "{": "{", "}": "}", "|": "|", "+": "+", "?": "?"}
_GNU_ESCAPES = {"<": r"\b(?=\w)", ">": r"\b(?<=\w)", "`": r"\A", "'": r"\Z",
                "w": r"\w", "W": r"\W", "s": r"\s", "S": r"\S", "b": r"\b", "B": r"\B"}  # fmt: skip


class RegexError(ValueError):
    """The pattern does not compile; the message is regerror's."""


def compile_basic(pattern: str, *, ignore_case: bool = False) -> re.Pattern[str]:
    """`pattern` (a GNU basic regular expression) as a compiled Python pattern."""
    try:
        return re.compile(translate_basic(pattern), re.IGNORECASE if ignore_case else 0)
    except re.error as error:  # gdb 13 (libiberty regex): one message for `\\(` and `\\)`
        text = str(error)
        paren = "parenthesis" in text or "missing )" in text or "subpattern" in text
        raise RegexError("Unmatched ( or \\(" if paren else text) from None


def translate_basic(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    at_start = True  # where `*` is literal and `^` an anchor
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            i += 2
            if nxt == "{":  # an interval: `\\{M,N\\}`, no literal brace as in Python
                _interval(pattern, i)
            if nxt in _OPERATORS:
                out.append(_OPERATORS[nxt])
                at_start = nxt in "(|"
                continue
            if nxt.isdigit() or nxt in _GNU_ESCAPES:
                out.append(_GNU_ESCAPES.get(nxt, "\\" + nxt))
            else:
                out.append(re.escape(nxt))
            at_start = False
            continue
        if c == "\\":
            raise RegexError("Trailing backslash")
        i += 1
        if c == "[":
            text, i = _bracket(pattern, i)
            out.append(text)
        elif c == "^":
            out.append("^" if at_start else r"\^")
            continue  # a `*` after a leading `^` is literal too
        elif c == "$":
            ends = i == n or pattern.startswith(("\\)", "\\|"), i)
            out.append("$" if ends else r"\$")
        elif c == "*":
            out.append(r"\*" if at_start else "*")
        elif c == ".":
            out.append(".")
        else:
            out.append(re.escape(c))
        at_start = False
    return "".join(out)


def _bracket(pattern: str, i: int) -> tuple[str, int]:
    """The bracket expression opening before `i`, and the index just past its `]`."""
    parts = ["["]
    if i < len(pattern) and pattern[i] == "^":
        parts.append("^")
        i += 1
    first = True
    while i < len(pattern):
        c = pattern[i]
        if c == "]" and not first:
            parts.append("]")
            return "".join(parts), i + 1
        first = False
        if c == "[" and pattern.startswith("[:", i):
            end = pattern.find(":]", i + 2)
            name = pattern[i + 2 : end] if end > 0 else ""
            if name not in _CLASSES:
                raise RegexError("Invalid character class name")
            parts.append(_CLASSES[name])
            i = end + 2
            continue
        parts.append("\\" + c if c in "\\[]^" else c)  # backslash is literal in brackets
        i += 1
    raise RegexError("Unmatched [ or [^")  # gdb 13's regex (libiberty's), not glibc 2.36's


def _interval(pattern: str, i: int) -> None:
    """Refuse the interval whose `\\{` ends before `i` as regcomp does."""
    end = pattern.find("\\}", i)
    if end < 0:
        raise RegexError("Unmatched \\{")
    if not _INTERVAL.fullmatch(pattern[i:end]):
        raise RegexError("Invalid content of \\{\\}")
