"""A console's empty line runs the last command again, as gdb 13's does (gdb.base/list.exp
test_repeat_list_command): `list FILE:N` repeated goes on with the next lines (repeated
without its argument), `list -` further back, `x/2dw ADDR` with the next words, `next` and
`print` run again, while `run` and `info line N` (gdb's dont_repeat) leave nothing to
repeat, nor a user command whose body says `dont-repeat`. Typed on stdin to gdb and to us,
the outputs compared whole."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, normalized
from tests.support.gdb import gdb_path
from tests.support.mi_client import ROOT

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_SOURCE = (
    "int table[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n\nint main (void)\n{\n  int x = 0;\n"
    + "".join(f"  x += table[{i % 8}];\n" for i in range(30))
    + "  return x > 1000;\n}\n"
)


def _typed(tmp_path: Path, lines: list[str]) -> tuple[str, str]:
    (tmp_path / "again.c").write_text(_SOURCE)
    subprocess.run(["gcc", "-g", "-O0", "-o", "again", "again.c"], cwd=tmp_path, check=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               XDG_CACHE_HOME=str(tmp_path))  # fmt: skip
    runs = [
        [str(gdb_path()), "-nx", "-q", "again"],
        [sys.executable, "-m", "aliceserver", "-nx", "-q", "again"],
    ]
    expected, got = (
        subprocess.run(
            argv,
            input="\n".join(lines) + "\n",
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=120,
            cwd=tmp_path,
            env=env,
        ).stdout  # fmt: skip
        for argv in runs
    )

    def kept(text: str) -> str:  # after the "Reading symbols" line, up to the end of input
        return normalized(text.split("\n", 1)[-1]).rsplit("(gdb) ", 1)[0]

    return kept(expected), kept(got)


def test_empty_line_repeats_the_last_command(tmp_path: Path) -> None:
    expected, got = _typed(tmp_path, [
        "set width 0", "list again.c:10", "", " ", "\t", "list 1,3", "", "x/2dw table", "", "", "list 30", "list -", "", "", "info line 8", "",
        "break 12", "run", "", "next", "", "", "print x", "", "continue", "",
    ])  # fmt: skip
    assert got == expected
    assert "25\t  x += table[3];" in got and "$2 = " in got


def test_dont_repeat_in_a_user_command(tmp_path: Path) -> None:
    expected, got = _typed(tmp_path, [
        "define twice", "print 2", "dont-repeat", "end", "define thrice", "print 3", "end",
        "twice", "", "thrice", "", "print 4", "dont-repeat", "",
    ])  # fmt: skip
    assert got == expected
    assert got.count("$1 = 2") == 1 and "$3 = 3" in got


def test_an_ambiguous_word_leaves_the_session_going(tmp_path: Path) -> None:
    """An ambiguous first word ('a/b': add-inferior, advance, alias...) is refused, and the
    server goes on: its repeat bookkeeping looked the word up again and died there."""
    expected, got = _typed(tmp_path, ["a/b", "print 4", ""])

    def others(text: str) -> str:  # (gdb 13 lists no command names for "a/b")
        return "\n".join(line for line in text.split("\n") if "Ambiguous command" not in line)

    assert "Ambiguous command" in got and "$2 = 4" in got
    assert others(got) == others(expected)
