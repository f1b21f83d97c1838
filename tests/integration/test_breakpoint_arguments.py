"""Breakpoint numbers given as values, against gdb 13: `disable $2 $$` takes history
values and `delete $foo` a convenience variable; one that is not an integer is refused
in gdb's words (a note, then `Bad breakpoint number '$x'`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("calls")


def test_breakpoint_numbers_from_values_like_gdb(prog: Path) -> None:
    got = assert_like_gdb(ex(
        "break main", "break add", "break leaf", "p 1", "p 3", "disable $1 $$", "info breakpoints",
        "set $foo = 2", "enable $foo", "set $baz = 1.5", "disable $baz", "disable $grbx", "disable $10",
        "disable $1foo", "p 1.5", "disable $", "delete $foo", "p (char) 3", "disable $", "info breakpoints",
    ) + [str(prog)], prog.parent)  # fmt: skip
    assert "Convenience variable must have integer value.\n" in got.stdout


def test_line_numbers_from_convenience_variables_like_gdb(prog: Path) -> None:
    got = assert_like_gdb(ex(
        "set $foo = 13", "break $foo", "set $l = 17", "break calls.c:$l", "set $foo = 81.5", "break $foo",
        "break calls.c:$foo", "info breakpoints",
    ) + [str(prog)], prog.parent)  # fmt: skip
    assert "Convenience variables used in line specs must have integer values.\n" in got.stderr
