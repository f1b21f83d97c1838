"""Hexadecimal floating literals (gdb.base/printcmds.exp's test_float_accepted), side by side
with gdb 13: C99's `0x1.8p6` forms, gdb's own `0x1.1` without an exponent, and their f and l
suffixes, among hex integers that stay integers."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def test_hex_floats_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("print_limits")
    commands = ex(
        "p 0x1.1", "p 0x1.8480000000000p+6", "p 0x1.8480000000000p6", "p 0x00.1p0", "p 0x00.1p1", "p 0x00.1p-1",
        "p 0x1p3", "whatis 0x1.1", "p 0x1.1f", "whatis 0x1.1f", "p 0x1.1p2f", "whatis 0x1.1p2l", "p 0x1.",
        "p 0x.8", "p 0x1.1e2", "p 0x1.1p", "p 0x1f", "whatis 0x1f", "p 0x1.1+1", "p 0x1p-2*4", "p 0x1ul",
    )
    got = assert_like_gdb([*commands, str(program)], tmp_path)
    assert "= 97.125" in got.stdout
