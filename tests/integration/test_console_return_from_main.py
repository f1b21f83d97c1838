"""`return` from main as gdb 13 does it: gdb's frame_pop takes the frame before main
(get_prev_frame_always) whatever `backtrace past-main` says, so main returns into libc,
whose missing source file is said as at any stop there, and the program exits with the
value returned."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import gcc_program

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

SOURCE = """int
twice (int x)
{
  return 2 * x;
}

int
main (void)
{
  return twice (3) - 6;
}
"""
# gdb adds LINES and COLUMNS to the program's environment: its stack moves
STACK = re.compile(r"0x7ff[0-9a-f]{9}")


@pytest.fixture()
def program(tmp_path: Path) -> Path:
    return gcc_program(tmp_path, "fin", SOURCE)


def _same(text: str) -> str:
    return STACK.sub("0x7ff...", normalized(text))


def test_return_from_main_like_gdb(program: Path) -> None:
    # not batch: the query and the frame popped to are shown (from_tty)
    session = ["-nx", "-q", "-iex", "set width 0"]
    session += ex("break main", "run", "return 5", "bt 1", "next", "kill", "quit")
    expected, got = (
        theirs([*session, str(program)], program.parent),
        ours([*session, str(program)], program.parent),
    )
    assert _same(got.stdout) == _same(expected.stdout)
    assert _same(got.stderr) == _same(expected.stderr)
    assert "Make main return now? (y or n) [answered Y; input not from terminal]" in got.stdout
    assert "exited with code 05]" in got.stdout
