"""`print x++`, `++x`, `x--`, `x += 2` write the program's variable as gdb does: postfix
gives the old value (not an lvalue), prefix the variable itself; pointers step by their
element, bitfields and chars wrap, the operand is evaluated once (`numbers[at++]++`), and
whatis and sizeof write nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb
from tests.support.build import Builder, marker_line

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_COMMANDS = ("p local++", "p local", "p --local", "p cursor++", "p *cursor", "p ++cursor", "p cursor--",
             "p cursor", "p ratio++", "p ratio", "p small++", "p small", "p bits.lo++", "p bits", "p ++bits.hi",
             "p bits", "p numbers[at++]++", "p at", "p numbers", "p local += 2", "p local -= 1", "p 1++",
             "p &local++", "p &++at", "p local++ = 3", "whatis ratio--", "p sizeof(at++)", "p ratio",
             "p at", "p numbers++", "output local++", "output local")  # fmt: skip


def test_increments_write_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("incdec")
    args = ["-ex", f"break incdec.c:{marker_line('incdec.c', 'main')}", "-ex", "run"]
    for command in _COMMANDS:
        args += ["-ex", command]
    got = assert_like_gdb([*args, str(program)], tmp_path)
    assert "$2 = 8" in got.stdout  # local++ wrote 8
