"""The keywords after a console breakpoint's location (gdb's find_condition_and_thread):
`if COND`, `thread ID`, `task N` and `-force-condition`, each also as any prefix of its
name (`t`/`th` are thread, `ta` task, once the location has ended at a whole keyword).

A condition ends where gdb's C lexer ends it: at a `thread`/`task` prefix followed by blanks
and a digit (`if x > 1 th 2`), or at another `if`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.inferiors import parse_thread_id
from aliceserver.adapters.mi.registry import MiError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

_TOKEN = re.compile(
    r"""[A-Za-z_$][\w$]*|"(?:\\.|[^"\\])*"?|'(?:\\.|[^'\\])*'?|\d[\w.]*|.""", re.DOTALL
)
_NUMBER_AHEAD = re.compile(r"[ \t]+[0-9]")


@dataclass(frozen=True)
class Keywords:
    condition: str | None = None
    thread: int | None = None
    force_condition: bool = False


def _names(word: str, name: str) -> bool:
    return 0 < len(word) <= len(name) and name.startswith(word)


def condition_end(text: str, start: int) -> int:
    """Where gdb's expression lexer stops reading a condition that begins at `start`."""
    pos = start
    while pos < len(text):
        token = _TOKEN.match(text, pos)
        assert token is not None  # `.` matches any character
        word = token.group()
        if word == "if" or (
            (_names(word, "thread") or _names(word, "task"))
            and _NUMBER_AHEAD.match(text, token.end())
        ):
            return pos
        pos = token.end()
    return pos


def _thread(session: MiSession, text: str) -> tuple[int, str]:
    """gdb's parse_thread_id on what follows `thread`: the number and the text after it."""
    word = text.split(None, 1)[0] if text.strip() and not text[0].isspace() else ""
    return thread_number(session, word, text), text[len(word) :]


def thread_number(session: MiSession, word: str, named: str | None = None) -> int:
    """The thread `word` names (THR or INF.THR), with gdb's errors; `named`: what its
    "Invalid thread ID" names (break's: all that follows `thread`)."""
    try:
        owner, number = parse_thread_id(session, word)
    except MiError as error:
        if str(error).startswith("Invalid thread ID"):
            raise MiError(f"Invalid thread ID: {word if named is None else named}") from None
        raise
    if owner.tid_of(number) is None:
        qualified = "." in word or len(session.inferiors) > 1 or session.inferior.number != 1
        raise MiError(
            f"Unknown thread {owner.number}.{number}." if qualified else f"Unknown thread {number}."
        )
    return number


def _task(session: MiSession, text: str) -> str:
    """`task N` (strtol's number): no Ada tasks here, so any number is unknown."""
    found = re.match(r"\s*[+-]?(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)", text)
    if found is None:
        raise MiError("Junk after task keyword.")
    if session.inferior.process is None:
        raise MiError("Cannot inspect Ada tasks when program is not running")
    raise MiError(f"Unknown task {int(found.group().strip(), 0)}.")


def keywords(session: MiSession, text: str) -> Keywords:
    """`if COND`, `thread N`, `task N` and `-force-condition` after a console location."""
    condition, thread, force = None, None, False
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        end = pos
        while end < len(text) and not text[end].isspace():
            end += 1
        word = text[pos:end]
        if _names(word, "if") or word.startswith("if("):
            start = pos + 2 if word.startswith("if(") else end + 1
            pos = condition_end(text, start)
            condition = text[start:pos]  # with its blanks, as gdb keeps it (`stop only if  a `)
        elif _names(word, "-force-condition"):
            force, pos = True, end
        elif _names(word, "thread"):
            thread, rest = _thread(session, text[end + 1 :])
            pos = len(text) - len(rest)
        elif _names(word, "task"):
            _task(session, text[end + 1 :])
        else:
            raise MiError(f"Garbage '{text[pos:].strip()}' at end of command")
    return Keywords(condition, thread, force)
