"""`break FILE:LINE` on a function's first line whose first statement comes from an
#include: gdb 13 names the included file and its line (the prologue skip's), not the
line asked for in FILE (gdb.base/break-include.exp)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb
from tests.support.build import Builder, marker_line

pytestmark = needs_gdb


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("break_included")


def test_break_on_a_line_that_moves_into_an_included_file(prog: Path) -> None:
    first = marker_line("break_included.c", "first")
    anchor = marker_line("break_included.inc", "anchor")
    out = output_like_gdb(
        prog, [f"break break_included.c:{first}", "break next", "info breakpoints", "run"]
    )
    assert f"break_included.inc, line {anchor}." in out
