"""`set print pretty on` was accepted and then ignored by the console: `print`, `output`
and `info locals` kept one line where gdb 13 lays a struct out one member per line (the
MI side is test_mi_print_pretty.py). A class with base classes inside another (gdb names it:
`members of Derived:`) left the whole value on one line, and a base named with template
arguments (`<Holder<int, 2>> = `, `print/r` of a unique_ptr) was cut at its `, `. /r with
a format letter (`print/xr`, a `print/r` after a `print/x`, which takes its x)
kept the pretty printers."""

from __future__ import annotations

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import CPP_FLAGS, MoreBuilder, find_cxx

pytestmark = [needs_gdb, pytest.mark.timeout(300),
              pytest.mark.skipif(find_cxx() is None, reason="g++ not installed")]

HERE = f"print_pretty.cpp:{marker_line(PROGRAMS_DIR / 'print_pretty.cpp', 'here')}"


@pytest.mark.parametrize("pretty", ["on", "off"])
def test_console_print_pretty_like_gdb(builder: Builder, pretty: str) -> None:
    program = MoreBuilder(builder.cache_dir).build_cpp("print_pretty", CPP_FLAGS)
    commands = [f"break {HERE}", "run", f"set print pretty {pretty}", "print pts", "print der",
                "print/x ob", "output outer", "print mp", "print wu", "print nest", "print lone",
                "print/r up", "print/xr tup", "up", "info locals"]
    args = [arg for command in commands for arg in ("-ex", command)]
    got = assert_like_gdb([*args, str(program)], program.parent)
    assert ("\n  " in got.stdout) == (pretty == "on")
    assert ("members of Derived:" in got.stdout) == (pretty == "on")
    assert ("members of Pair<int, char>:" in got.stdout) == (pretty == "on")
    printed = got.stdout.split("\n$1 = ", 1)[1].split("\ntup = ")[0]  # the prints, not info locals
    raw = printed.replace("\n", "").replace(" ", "")
    assert "_M_head_impl=0x1}" in raw and "std::tuplecontaining" not in raw  # print/xr tup
    assert "std::unique_ptr<Point>=" not in raw  # print/r up (its x from print/x ob)


def test_display_with_a_format_and_raw_like_gdb(builder: Builder) -> None:
    """`display/xr` shows the raw members in hex at each stop (it kept the tuple's printer)."""
    program = MoreBuilder(builder.cache_dir).build_cpp("print_pretty", CPP_FLAGS)
    commands = [f"break {HERE}", "run", "display/xr tup", "display tup", "next"]
    got = assert_like_gdb([arg for command in commands for arg in ("-ex", command)] + [str(program)], program.parent)
    assert "1: /x tup = {<std::_Tuple_impl<0, int, int>> = " in got.stdout
    assert "2: tup = std::tuple containing = {[1] = 1, [2] = 2}" in got.stdout
