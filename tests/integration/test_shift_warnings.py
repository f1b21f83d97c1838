"""gdb's checks of integer operations: a shift by a negative count or one past the
result's width warns (its error stream, before the value) and gives zero, in print,
output, whatis and compound assignments alike; an integer-only operation on a
floating-point number (`%`, `&`, a shift) is gdb's error, zero divisor or not."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.batch import batch_in_program_dir, needs_gdb, output_like_gdb
from tests.support.build import Builder
from tests.support.gdb import gdb_path

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_START = ["break main", "run"]


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return builder.build("brace_assign", ("-g", "-O0"))


def test_shift_counts_out_of_range_like_gdb(program: Path) -> None:
    got = output_like_gdb(program, [*_START,
        "print 1 << 31", "print 1 << 32", "print 1 << -1", "print 1 >> -1", "print 1L << 63",
        "print 1L << 64", "print -1 >> 1", "print 1u << 32", "print 1 << 40L", "print 'A' << 8",
        "print 5 << 4294967295u", "print 5 << -4294967295L", "print 1 >> 99999999999999999",
        "print o.l = 3", "print o.l <<= 64", "print a3[0] = 1", "print a3[0] >>= -2",
        "whatis 1 << 40", "ptype a3[1] >> -1", "print sizeof (1 << 40)", "output 1 << 40",
    ])  # fmt: skip
    assert "warning: left shift count >= width of type" in got
    assert "warning: right shift count is negative" in got


def test_integer_only_operations_on_floats_like_gdb(program: Path) -> None:
    output_like_gdb(program, [*_START,
        "print 1.5 >> 1", "print 1 >> 1.5", "print 1.5 % 2", "print 1.5 % 0", "print 1.5 & 1",
        "print 1 | 2.0", "print 1.5 ^ 1", "print o.l %= 1.5", "print 7 % 0", "print 1.5 / 0",
    ])  # fmt: skip


def test_the_shift_warning_comes_before_the_value(program: Path) -> None:
    commands = [*_START, "print 1 << 32", "print 2 >> -1", "output 1 << 40"]
    expected = batch_in_program_dir([gdb_path() or "gdb"], commands, program)
    assert batch_in_program_dir([sys.executable, "-m", "aliceserver"], commands, program) == expected
    assert "warning: left shift count >= width of type\n$1 = 0\n" in expected
