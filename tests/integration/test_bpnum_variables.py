"""gdb's `$bpnum` (the last breakpoint, watchpoint or catchpoint made) and gdb 13's
`$_hit_bpnum` / `$_hit_locno` (the breakpoint and location a stop is told for; a temporary
breakpoint leaves them as they were), as `print` and `show convenience` show them, against
gdb 13 on a program with a two-location breakpoint."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb, normalized, ours, theirs

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_A = """\
static int same(int x) { return x + 1; }
int other(int x);
int counter;
int main(void) {
  int a = same(1);
  int b = other(a);
  counter = a + b;
  return counter > 100;
}
"""
_B = "static int same(int x) { return x * 2; }\nint other(int x) { return same(x); }\n"


@pytest.fixture
def prog(tmp_path: Path) -> Path:
    (tmp_path / "a.c").write_text(_A)
    (tmp_path / "b.c").write_text(_B)
    program = tmp_path / "prog"
    subprocess.run(["gcc", "-g", "-O0", "-o", str(program), "a.c", "b.c"], cwd=tmp_path, check=True)
    return program


def test_bpnum_and_hit_numbers_like_gdb(prog: Path) -> None:
    commands = ex("p $bpnum", "break same", "p $bpnum", "tbreak main", "p $bpnum", "run", "p $_hit_bpnum",
                  "continue", "p $_hit_bpnum", "p $_hit_locno", "continue", "p $_hit_bpnum", "p $_hit_locno",
                  "watch counter", "p $bpnum", "continue", "p $_hit_bpnum", "p $_hit_locno",
                  "set $bpnum = 9", "p $bpnum", "disable $_hit_bpnum", "info breakpoints 3")
    got = assert_like_gdb([*commands, str(prog)], prog.parent)
    values = [line for line in got.stdout.splitlines() if line.startswith("$")]
    assert values == ["$1 = void", "$2 = 1", "$3 = 2", "$4 = void", "$5 = 1", "$6 = 1", "$7 = 1", "$8 = 2",
                      "$9 = 3", "$10 = 3", "$11 = 1", "$12 = 9"]


def _variables(text: str) -> list[str]:
    """The lines of show convenience for the variables made here, in gdb's order."""
    names = ("$zz ", "$bpnum ", "$_hit_bpnum ", "$_hit_locno ")
    return [line for line in normalized(text).splitlines() if line.startswith(names)]


def test_show_convenience_lists_them_by_creation_like_gdb(prog: Path) -> None:
    # gdb also lists its internal functions ($_strlen...), which show convenience does not.
    args = ["-batch", "-nx", *ex("break same", "run", "set $zz = 1", "break other", "set $zz = 2",
                                 "show convenience"), str(prog)]
    expected, got = theirs(args, prog.parent), ours(args, prog.parent)
    assert _variables(got.stdout) == _variables(expected.stdout)
    assert _variables(got.stdout) == ["$zz = 2", "$_hit_locno = 1", "$_hit_bpnum = 1", "$bpnum = 2"]
