"""-ada-task-info and -info-ada-exceptions in a C program (no tasks, an empty exception
table), and -remove-inferior with each of gdb's errors, before the program runs and at a
breakpoint: the same records as gdb 13's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.mi_script import both

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


def test_ada_commands_in_a_c_program_as_gdb(builder: Builder, tmp_path: Path) -> None:
    prog = builder.build("cli_prog")
    asked = ["-ada-task-info", "-ada-task-info 1", "-ada-task-info 1 2", "-info-ada-exceptions",
             "-info-ada-exceptions foo", "-info-ada-exceptions [", "-info-ada-exceptions a b"]  # fmt: skip
    expected, got = both(prog, [*asked, "-break-insert add", "-exec-run", *asked], tmp_path)
    assert got == expected
    assert got.count('^error,msg="Cannot inspect Ada tasks when program is not running"') == 2


def test_remove_inferior_as_gdb(builder: Builder, tmp_path: Path) -> None:
    prog = builder.build("cli_prog")
    commands = ["-remove-inferior", "-remove-inferior i1", "-remove-inferior i2", "-remove-inferior 1",
                "-remove-inferior ix", "-remove-inferior i1 i2", "-add-inferior", "-remove-inferior i2",
                "-add-inferior", "-add-inferior", '-interpreter-exec console "inferior 4"', "-remove-inferior i4",
                '-interpreter-exec console "info inferiors"', '-interpreter-exec console "inferior 1"',
                "-break-insert add", "-exec-run", "-remove-inferior i1", "-remove-inferior i3",
                '-interpreter-exec console "info inferiors"']  # fmt: skip
    expected, got = both(prog, commands, tmp_path)
    assert got == expected
    assert got.count('=thread-group-removed,id="i4"') == 1 and '^done,inferior="i4"' in got
