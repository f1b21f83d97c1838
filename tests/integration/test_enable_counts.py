"""gdb's `enable once`, `enable count N` and `enable delete` (and MI's -break-enable, the
same command) against gdb 13 on cond_locations.cpp: disp="dis" breakpoints disable
themselves after their stops counted down, told in =breakpoint-modified with enabled="n"."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_break_conditions import _mi_records, prog
from tests.support.batch import assert_like_gdb, ex, needs_gdb

pytestmark = [needs_gdb, pytest.mark.timeout(180)]
__all__ = ["prog"]  # the fixture, shared


def test_console_enable_once_count_delete_like_gdb(prog: Path) -> None:
    got = assert_like_gdb(ex(
        "break main", "break pick", "enable count 2 2", "enable once 1", "info breakpoints", "run",
        "info breakpoints", "continue", "continue", "info breakpoints", "enable count", "enable delete 1",
        "info breakpoints", "continue",
    ) + [str(prog)], prog.parent)
    assert "\tdisable after next 2 hits\n" in got.stdout
    assert "2       breakpoint     dis  n   <MULTIPLE>" in got.stdout


def test_mi_break_enable_count_like_gdb(prog: Path) -> None:
    commands = ["-break-insert pick", "-break-enable count 1 1", "-break-info 1", "-exec-run", "-exec-continue"]
    theirs = _mi_records(prog, commands, gdb=True)
    got = _mi_records(prog, commands, gdb=False)
    assert got == theirs
    assert any(line.startswith('=breakpoint-modified,bkpt={number="1",type="breakpoint",disp="dis",enabled="n"')
               for line in got)
