"""whatis and ptype of a qualified typedef named directly (gdb 13's whatis shows the
typedef's immediate target, so `whatis const myint` is int, ptype `const int`), `const`
before a name that is no type (a syntax error there), and `&` of a constant: print says
it is no lvalue, whatis, ptype and sizeof (gdb's EVAL_AVOID_SIDE_EFFECTS) refuse a
LOC_CONST symbol (DW_AT_const_value at -O2, an enumerator) with their own words."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb
from tests.support.build import Builder, marker_line

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_COMMANDS = ("whatis const myint", "ptype const myint", "whatis myint const", "whatis volatile myint",
             "whatis myint", "whatis const myint *", "whatis (const myint)m", "p sizeof(const myint)",
             "whatis const nosuch", "whatis const m", "p (const nosuch)m", "whatis const struct nosuch",
             "whatis c", "p c", "whatis &c", "ptype &c", "p &c", "p sizeof(&c)", "output &c",
             "whatis &RED", "p &RED", "whatis &m", "whatis &col")  # fmt: skip


@pytest.mark.parametrize("optimize", ["-O2", "-O0"])
def test_whatis_and_constants_like_gdb(builder: Builder, tmp_path: Path, optimize: str) -> None:
    program = builder.build("const_addr", ("-g", optimize))
    args = ["-ex", f"break const_addr.c:{marker_line('const_addr.c', 'main')}", "-ex", "run"]
    for command in _COMMANDS:
        args += ["-ex", command]
    got = assert_like_gdb([*args, str(program)], tmp_path)
    assert "type = int\n" in got.stdout
