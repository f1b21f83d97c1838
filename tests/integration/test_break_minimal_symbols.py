"""`break NAME` / `break 'NAME'` for a function without debug info, as gdb 13's linespec.c
(search_minsyms_for_name): a location at every module's function symbol of that name, the
program's and each library's (the loader's `_start`, read from its debug file's table, is a
label of no type), static ones too, and beside a function of that name with debug info in
another module; before `run`, the program's alone. Console text against gdb's."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

LIBRARY = """int twice(int x) { return x * 2; }
static int hidden(int x) { return x + 3; }
int lib_calls(int x) { return hidden(x) + 1; }
int mixed(int x) { return x - 1; }
"""
NO_DEBUG = """int twice(int x) { return x * 4; }
static int hidden(int x) { return x + 5; }
int nd_calls(int x) { return hidden(x) + twice(x); }
"""
MAIN = """int nd_calls(int);
int lib_calls(int);
int mixed(int x) { return x + 9; }
int main(void) { return nd_calls(1) + lib_calls(2) + mixed(3); }
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """twice and hidden without debug info in the program and its library; mixed with
    debug info in the program, without in the library."""
    where = tmp_path_factory.mktemp("minsyms")
    for name, text in (("lib.c", LIBRARY), ("nd.c", NO_DEBUG), ("m.c", MAIN)):
        (where / name).write_text(text)
    for build in (["gcc", "-O0", "-shared", "-fPIC", "-o", "libl.so", "lib.c"], ["gcc", "-O0", "-c", "nd.c"],
                  ["gcc", "-g", "-O0", "-o", "m", "m.c", "nd.o", "-L.", "-ll", "-Wl,-rpath,$ORIGIN"]):  # fmt: skip
        subprocess.run(build, cwd=where, check=True, timeout=120)
    return where / "m"


def test_every_modules_symbol(program: Path) -> None:
    commands = ["start", "break '_start'", "break _start", "break twice", "break 'hidden'", "break mixed", "break 'mixed'",
                "info breakpoints"]  # fmt: skip
    got = assert_like_gdb([*ex(*commands), str(program)], program.parent)
    assert "<hidden+4>" in got.stdout and "2.2 " in got.stdout


def test_before_run_the_programs_alone(program: Path) -> None:
    commands = ["break _start", "break 'twice'", "info breakpoints"]
    got = assert_like_gdb([*ex(*commands), str(program)], program.parent)
    assert "<MULTIPLE>" not in got.stdout
