"""A breakpoint's file named as gdb 13 names it: by the symtab of the unit holding the
breakpoint's address. Two units name one header differently (`../common/h.h` from a unit
compiled in a subdirectory, `common/h.h` from the one whose function the breakpoint is in);
the message of `break`, `info breakpoints` and MI's `file=` say the second unit's name,
where the first unit naming the file was asked (by its path) before."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb

HEADER = """struct pair { int x, y; };
#ifdef WITH_HELPER
static int helper(struct pair *p)
{
  return p->x + p->y;
}
#endif
"""
FIRST = """#include "../common/h.h"
struct pair a_pair = { 1, 2 };
int a_value(void) { return a_pair.x; }
"""
SECOND = """#define WITH_HELPER
#include "common/h.h"
int a_value(void);
int main(void) { struct pair p = { a_value(), 3 }; return helper(&p) == 4 ? 0 : 1; }
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    root = tmp_path_factory.mktemp("symtab_names")
    (root / "a").mkdir()
    (root / "common").mkdir()
    (root / "common" / "h.h").write_text(HEADER)
    (root / "a" / "a.c").write_text(FIRST)  # linked first: its unit names the header first
    (root / "b.c").write_text(SECOND)
    subprocess.run(["gcc", "-g", "-O0", "-c", "a.c", "-o", "../a.o"], cwd=root / "a", check=True)
    subprocess.run(["gcc", "-g", "-O0", "-c", "b.c", "-o", "b.o"], cwd=root, check=True)
    subprocess.run(["gcc", "-g", "a.o", "b.o", "-o", "prog"], cwd=root, check=True)
    return root / "prog"


@needs_gdb
def test_a_breakpoint_names_its_file_as_its_own_unit_does(program: Path) -> None:
    commands = ex("break helper", "break h.h:5", "info breakpoints", 'interpreter-exec mi "-break-insert helper"')
    got = assert_like_gdb([*commands, str(program)], program.parent)
    assert "file common/h.h, line 5." in got.stdout and "../common/h.h" not in got.stdout
