"""Scalars as gdb.base/printcmds.exp prints them, side by side with gdb 13: a flag enum whose
enumerators repeat a bit (`(FE_ONE | FE_TWO)`), a float under /c and /a (its number, not its
bits, unlike /x), and the empty character constant's error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def test_print_scalars_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("print_scalars")
    commands = ex(
        "print three", "print (enum flag_enum) 0x0", "print (enum flag_enum) 0xf1", "print (enum flag_enum) 2",
        "print three_not_flag", "print/c f_var", "print/a f_var", "print/x f_var", "print/c d_var",
        "output/c f_var", "print/c 300.0", "print/c 1.5", "p ''", "p '''", "p 'ab'", "p ''+1",
    )
    got = assert_like_gdb([*commands, str(program)], tmp_path)
    assert "(FE_ONE | FE_TWO)" in got.stdout and "65 'A'" in got.stdout


def test_comma_operator_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """C's comma operator where gdb takes a whole expression: print's, parentheses, an index."""
    program = builder.build("print_scalars")
    commands = ex(
        "p 1,2", "p (1,2)", "whatis (1,2.0)", 'p "x"[1,0]', "output 3,4", "p (1,2",
        'printf "%c\\n", "x"[1,0]', 'printf "%d %d\\n", (1,2), 3', 'p $_streq("a", "a"), 5', "p {1,2}",
    )
    got = assert_like_gdb([*commands, str(program)], tmp_path)
    assert "$3 = 120 'x'" in got.stdout
