"""gdb's `with SETTING [VALUE] [-- COMMAND]` (and its alias `w`): the setting changed for
the one command and restored after it, even when the command fails; nested; gdb's errors
for no arguments, no setting, no command and a setting it does not know. Against gdb 13."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_SOURCE = """\
struct pt { int x, y; };
struct pt corner = {7, 8};
int arr[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
int main(void) { return corner.x + arr[1]; }
"""


@pytest.fixture
def prog(tmp_path: Path) -> Path:
    (tmp_path / "with.c").write_text(_SOURCE)
    program = tmp_path / "prog"
    subprocess.run(["gcc", "-g", "-O0", "-o", str(program), "with.c"], cwd=tmp_path, check=True)
    return program


def test_with_sets_for_one_command_and_restores_like_gdb(prog: Path) -> None:
    commands = ex("with print pretty -- p corner", "p corner", "w print elements 3 -- p arr",
                  "show print elements", "with print elements 3 -- p nosuch", "show print elements",
                  "with print pretty -- with print elements 2 -- p corner", "with pagination off -- p 2",
                  "with print elements 4 -- with print elements 2 -- show print elements",
                  "show print elements", "with height 5 -- show height", "show height",
                  "with print elem 2 -- p arr", "with print elements unlimited -- p arr",
                  "with directories /nowhere -- show directories", "show directories")
    got = assert_like_gdb([*commands, str(prog)], prog.parent)
    assert got.stdout.startswith("$1 = {\n  x = 7,\n  y = 8\n}\n$2 = {x = 7, y = 8}\n$3 = {1, 2, 3...}\n")
    assert got.stdout.count("Limit on string chars or array elements to print is 200.") == 3


def test_with_errors_like_gdb(prog: Path) -> None:
    commands = ex("with", "with -- p 1", "with foo -- p 1", "with print pretty", "with print pretty on --",
                  "with print --  p 1", "with print foo -- p 1", "with print elements -- p arr",
                  "show print elements", "with confirm off -- p 5")
    got = assert_like_gdb([*commands, str(prog)], prog.parent)
    assert got.stderr.startswith("Missing arguments.\nMissing setting before '--' delimiter\n")
