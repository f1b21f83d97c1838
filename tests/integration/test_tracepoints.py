"""Tracepoints as gdb 13 has them on its native target (cond_locations.cpp): made by `trace`
and -break-insert -a, counted by passcount and -break-passcount, listed and deleted as
breakpoints are, $tpnum set, never inserted (installed="n"), so a run passes them by; a
trace experiment is refused in gdb's words."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_break_conditions import _mi_records, prog
from tests.support.batch import assert_like_gdb, ex, needs_gdb

pytestmark = [needs_gdb, pytest.mark.timeout(180)]
__all__ = ["prog"]  # the fixture, shared


def test_mi_tracepoints_like_gdb(prog: Path) -> None:
    commands = [
        "-var-create tpnum * $tpnum", "-break-insert -a main", "-var-update tpnum",
        "-var-evaluate-expression tpnum", "trace pick", "passcount 2", "passcount 3 1", "passcount 1 9",
        "-break-passcount 1 5", "-break-passcount 9 5", "-break-insert -a -c nosuch main", "-break-info",
        "info breakpoints", "tstart", "tstatus", "tstop", "-break-delete 2", "-exec-run",
    ]
    theirs = _mi_records(prog, commands, gdb=True)
    got = _mi_records(prog, commands, gdb=False)
    assert got == theirs
    assert any('type="tracepoint"' in line and 'installed="n"' in line for line in got)
    assert '^done,value="1"' in got and got[-1].startswith('*stopped,reason="exited-normally"')


def test_console_tracepoints_like_gdb(prog: Path) -> None:
    assert_like_gdb(ex("trace main", "tstart", "passcount 4", "info breakpoints", "print $tpnum",
                       "passcount", "passcount 1 x", "run") + [str(prog)], prog.parent)
