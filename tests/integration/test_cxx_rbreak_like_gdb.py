"""`rbreak REGEX` and `info functions REGEX` on a C++ program, against gdb 13.

gdb matches a C++ function's search name, its parameters included (`ns::foo(int)`, a
static function's computed name put through gdb's C++ name parser: `sfoo(char const*,
int)`), so `foo$` finds no C++ function and `foo(int)` (a basic regex: its parentheses are
plain characters) finds that overload alone; rbreak breaks at that overload only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, batch_in_program_dir, ex, needs_gdb
from tests.support.gdb import gdb_path

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_SOURCE = """\
namespace ns {
int foo(int x) { return x + 1; }
int foo(double d) { return (int)d; }
}
struct K {
  int bar(int y) { return y * 2; }
  static int baz() { return 3; }
  int operator()(int z) { return z; }
};
extern "C" int cfun(int q) { return q; }
int foo_top(char c) { return c; }
static int sfoo(const char *s, int n) { return s[n]; }
int main() {
  K k;
  return ns::foo(1) + ns::foo(2.0) + k.bar(3) + K::baz() + foo_top('a') + k(1) + cfun(2) + sfoo("ab", 1) - 2;
}
"""

_REGEXES = (
    "foo$", "^ns::foo$", "bar$", "foo(int)", "^foo", "main$", "main()", "cfun$", "operator()",
    r"sfoo(char const\*, int)", "sfoo(const char", "int)$", "(double)", "int, int", "^K::baz()$",
    r"char const\*", "K::",
)  # fmt: skip


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("cxx_rbreak")
    (where / "prog.cc").write_text(_SOURCE)
    subprocess.run(["g++", "-g", "-O0", "-o", "prog", "prog.cc"], cwd=where, check=True)
    return where / "prog"


def test_info_functions_matches_parameters(program: Path) -> None:
    commands = ex(*(f"info functions {regex}" for regex in _REGEXES))
    assert_like_gdb([*commands, str(program)], program.parent)


@pytest.mark.parametrize("regex", _REGEXES)
def test_rbreak_breaks_at_the_overload_found(program: Path, regex: str) -> None:
    # run in the same environment (a method's `this` is a stack address)
    commands = (f"rbreak {regex}", "info breakpoints", "run", "bt 1")
    expected = batch_in_program_dir([gdb_path() or "gdb"], commands, program)
    assert (
        batch_in_program_dir([sys.executable, "-m", "aliceserver"], commands, program) == expected
    )
