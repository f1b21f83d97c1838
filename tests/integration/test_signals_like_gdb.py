"""Signals as gdb's signals.exp meets them, side by side with gdb 13: calling an
unprototyped `static void func1 ()` (no DW_AT_type: void, not an unknown return type)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb
from tests.support.build import Builder, marker_line

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("alarm_handler")


def test_call_unprototyped_void_function_like_gdb(prog: Path) -> None:
    line = marker_line("alarm_handler.c", "first")
    got = output_like_gdb(prog, [f"break {line}", "run", "print func1 ()", "print count", "call func2 ()",
                                 "print count", "kill"])  # fmt: skip
    assert "$1 = void" in got
