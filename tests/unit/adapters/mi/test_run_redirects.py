"""The argument text of `run` split as gdb's startup shell splits it (run_redirects.py)."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aliceserver.adapters.mi.registry import MiError
from aliceserver.adapters.mi.run_redirects import split_command_line
from aliceserver.debuggers.model import Redirection


@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), max_size=8),
                max_size=6))
def test_quoted_words_come_back_whole(words: list[str]) -> None:
    line = split_command_line(" ".join(shlex.quote(word) for word in words))
    assert (line.args, line.redirections) == (words, [])


def test_operators_and_descriptors() -> None:
    line = split_command_line("a 2>err '<'x >>log <in 2>&1 \"3\">out &>all 12x>f")
    assert line.args == ["a", "<x", "3", "12x"]
    assert line.redirections == [
        Redirection(2, "err", "w"), Redirection(1, "log", "a"), Redirection(0, "in", "r"),
        Redirection(2, copy_of=1), Redirection(1, "out", "w"), Redirection(1, "all", "w"),
        Redirection(2, copy_of=1), Redirection(1, "f", "w")]


@pytest.mark.parametrize(("text", "message"), [
    ("x >", "syntax error near unexpected token `newline'"),
    ("x < | y", "syntax error near unexpected token `|'"),
    ("x | y", "syntax error near unexpected token `|'"),
    ("'open", "unexpected EOF while looking for matching `''"),
    ("2>&file", "file: ambiguous redirect"),
])  # fmt: skip
def test_shell_errors(text: str, message: str) -> None:
    with pytest.raises(MiError) as raised:
        split_command_line(text)
    assert str(raised.value).startswith(message)
