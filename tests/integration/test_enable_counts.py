"""gdb's `enable once`, `enable count N` and `enable delete` (and MI's -break-enable, the
same command) against gdb 13 on cond_locations.cpp: disp="dis" breakpoints disable
themselves after their stops counted down, told in =breakpoint-modified with enabled="n"."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_break_conditions import _mi_records, prog
from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.jump_patches import jump_patches as jump_patches  # the fixture

# Each scenario with jump patches on and off: the same stops either way.
pytestmark = [needs_gdb, pytest.mark.timeout(180), pytest.mark.usefixtures("jump_patches")]
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


def test_console_locations_enabled_one_by_one_like_gdb(prog: Path) -> None:
    """`disable N.M` (and ranges N.M-K) acts on one location of `pick`, N.1 of a breakpoint
    with one location on the breakpoint; a hit skips a disabled location only."""
    got = assert_like_gdb(ex(
        "break pick", "break main", "disable 1.2", "info breakpoints", "run", "continue", "enable 1.2",
        "disable 1.3", "disable 1.0", "disable 3.1", "disable 3.2", "disable 2.1", "disable 1.1-2",
        "info breakpoints", "enable 1.1", "continue",
    ) + [str(prog)], prog.parent)
    assert "1.2                         n   0x000000000000114a in pick(double)" in got.stdout
    assert "\nBreakpoint 1.1, pick (count=4)" in got.stdout  # not pick(2.5) at 1.2


def test_mi_locations_enabled_one_by_one_like_gdb(prog: Path) -> None:
    commands = ["-break-insert pick", "-break-disable 1.2", "-break-info 1", "disable 1.1", "enable 1.1-2",
                "-break-disable 1.5", "-break-enable 1.2", "-exec-run"]
    theirs = _mi_records(prog, commands, gdb=True)
    got = _mi_records(prog, commands, gdb=False)
    assert got == theirs
    assert any('{number="1.2",enabled="n"' in line for line in got)
