"""gdb negates a floating-point number as 0 - x: `-0.0` prints 0 and a NaN keeps its
sign; 0.0 / 0 is the x86 default NaN, negative, in double, float and long double."""

from __future__ import annotations

import pytest

from tests.support.batch import needs_gdb, output_like_gdb
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def test_negation_and_nan_signs_like_gdb(builder: Builder) -> None:
    program = builder.build("operand_kinds", ("-g", "-O0"))
    got = output_like_gdb(program, ["break main", "run",
        "print -0.0", "print -(-0.0)", "print +(-0.0)", "print 0.0 * -1", "print -0.0f", "print -0.0l",
        "print 0.0 / 0", "print -(0.0 / 0)", "print 0.0f / 0", "print -(0.0f / 0)", "print 0.0l / 0",
        "print -(0.0l / 0)", "print real = 0", "print -real", "print -1.5", "print -(1e308 * 10)",
    ])  # fmt: skip
    assert "= -nan(0x8000000000000)" in got
