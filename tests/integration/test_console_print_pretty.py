"""`set print pretty on` was accepted and then ignored by the console: `print`, `output`
and `info locals` kept one line where gdb 13 lays a struct out one member per line (the
MI side is test_mi_print_pretty.py)."""

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
                "print/x ob", "output outer", "print mp", "print wu", "up", "info locals"]
    args = [arg for command in commands for arg in ("-ex", command)]
    got = assert_like_gdb([*args, str(program)], program.parent)
    assert ("\n  " in got.stdout) == (pretty == "on")
