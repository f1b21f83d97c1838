"""C11's `_Alignof (type)` as gdb's UNOP_ALIGNOF: an int, a scalar's size, an array's
element's, a struct's or union's largest field's; an expression in it is gdb's syntax
error (its grammar takes a type alone)."""

from __future__ import annotations

import pytest

from tests.support.batch import needs_gdb, output_like_gdb
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def test_alignof_like_gdb(builder: Builder) -> None:
    program = builder.build("operand_kinds", ("-g", "-O0"))
    got = output_like_gdb(program, [
        "print _Alignof(double)", "print _Alignof(number)", "print _Alignof(struct pair)",
        "print _Alignof(union either)", "print _Alignof(char)", "print _Alignof(long double)",
        "print _Alignof(int[3])", "print _Alignof(char *)", "print _Alignof(void)", "print _Alignof(short)",
        "print _Alignof(int (*)(int))", "print _Alignof double", "print _Alignof(double",
        "whatis _Alignof(double)", "print sizeof(int) + _Alignof(int)", "print _Alignof(struct nosuch)",
        "print alignof(double)",
    ])  # fmt: skip
    assert "$2 = 8\n$3 = 4\n" in got  # struct pair (a long), union either (an int)
