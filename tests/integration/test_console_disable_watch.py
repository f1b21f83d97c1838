"""`disable` and `enable` of watchpoints against gdb 13 on a program built here: a disabled
watchpoint never stops the program; enabled again it watches on (a watch on locals in its
frame), its old value the one at the enable."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_SOURCE = """\
int g;
int f(int a)
{
  int loc = a;
  loc++;
  g++;
  loc += 2;
  g += 2;
  loc *= 3;
  return loc;
}
int main(void)
{
  int i;
  for (i = 0; i < 3; i++)
    g += f(i);
  return 0;
}
"""


@pytest.fixture(scope="module")
def prog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("disable_watch")
    (where / "prog.c").write_text(_SOURCE)
    subprocess.run(["gcc", "-g", "-O0", "-o", "prog", "prog.c"], cwd=where, check=True)
    return where / "prog"


def test_disabled_watchpoints_do_not_stop_like_gdb(prog: Path) -> None:
    out = output_like_gdb(prog, ["break f", "run", "watch loc", "watch g", "disable 2", "disable 3", "next",
                                 "next", "info watchpoints", "enable 2", "continue", "enable 3", "continue",
                                 "continue", "disable 3", "continue", "info breakpoints"])  # fmt: skip
    assert "Old value = 1\nNew value = 3" in out


def test_watchpoint_disabled_at_its_stop_like_gdb(prog: Path) -> None:
    """display.exp's `disab 3` right after that watchpoint stopped the program."""
    output_like_gdb(prog, ["break main", "run", "watch g", "break 17", "continue", "disable 2", "continue",
                           "info breakpoints"])  # fmt: skip


def test_watchpoint_disabled_in_an_earlier_run_like_gdb(prog: Path) -> None:
    """Enabled in a new process (its globals elsewhere, the address space randomized): the
    watch is set afresh, as at a start, not on the old process's address."""
    output_like_gdb(prog, ["set disable-randomization off", "break main", "run", "watch g", "disable 2", "run",
                           "enable 2", "continue", "info watchpoints"])  # fmt: skip
