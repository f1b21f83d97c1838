"""Enums in arithmetic as gdb 13 evaluates them (binop_promote / unop_promote): an enum
of 8 bytes (a value past 2^32) promotes to long or unsigned long, not to int, and a unary
operator keeps an enum of int's width or more as the enum. Found by conformance/generated.py:
`l == E3_0` with E3_0 = 2^40 was true for l = 0."""

from __future__ import annotations

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb
from tests.support.build import Builder, marker_line

pytestmark = [needs_gdb, pytest.mark.timeout(120)]

SOURCE = "enum_arith.c"
EXPRESSIONS = (
    "zero == B0", "zero != B0", "B0 + 0", "whatis B0 + 0", "b - 4", "whatis b - 4", "-b", "~b",
    "-B0", "whatis -B0", "-s", "whatis -s", "~s", "-n", "whatis -n", "~n", "s + 1",
    "whatis s + 1", "whatis n + 1", "-f", "~f", "f | F4", "whatis f | F4", "s * s", "-S1",
)


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_enum_arithmetic_like_gdb(builder: Builder, opt: str) -> None:
    prog = builder.build("enum_arith", flags=("-g", opt))
    commands = [f"break {SOURCE}:{marker_line(SOURCE, 'enums')}", "run"]
    commands += [e if e.startswith("whatis") else f"print {e}" for e in EXPRESSIONS]
    args = [arg for command in commands for arg in ("-ex", command)]
    got = assert_like_gdb([*args, str(prog)], prog.parent)
    assert "$1 = 0\n" in got.stdout  # zero == B0 is false (it was true, B0 cut to 32 bits)
