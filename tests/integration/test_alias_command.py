"""gdb's `alias [-a] [--] ALIAS = COMMAND [DEFAULT-ARGS...]`: an alias runs its command
with its default arguments first (`alias ab = break twice`, then `ab`), an alias of a
prefix command takes its subcommands (`alias spi = set print`), and gdb's errors (usage,
an existing alias or command, an unknown command or option, an alias of an alias with
default arguments). Against gdb 13, console and MI."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import PATIENCE, assert_like_gdb, ex, needs_gdb
from tests.support.gdb import gdb_path
from tests.support.mi_client import ROOT

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_SOURCE = """\
int twice(int x) { return 2 * x; }
int main(void) { return twice(3) == 6 ? 0 : 1; }
"""


@pytest.fixture
def prog(tmp_path: Path) -> Path:
    (tmp_path / "alias.c").write_text(_SOURCE)
    program = tmp_path / "prog"
    subprocess.run(["gcc", "-g", "-O0", "-o", str(program), "alias.c"], cwd=tmp_path, check=True)
    return program


def test_aliases_run_their_commands_like_gdb(prog: Path) -> None:
    commands = ex("alias fb = break", "alias -- p3 = print", "alias -a -- p4 = print", "alias pp2 = print /x",
                  "fb main", "p3 1+1", "pp2 255", "p4 3", "alias spi = set print", "spi elements 3",
                  "show print elements", "alias ab = break twice", "ab", "alias p5 = p3", "p5 7", "alias x.y = print",
                  "x.y 8", "run",
                  "info breakpoints")
    got = assert_like_gdb([*commands, str(prog)], prog.parent)
    assert "$2 = 0xff\n" in got.stdout and "Breakpoint 2 at " in got.stdout


def test_alias_errors_like_gdb(prog: Path) -> None:
    commands = ex("alias", "alias foo", "alias = break", "alias foo =", "alias fb = break", "alias fb = break",
                  "alias break = tbreak", "alias b2 = nosuch", "alias -a pp = print -pretty --",
                  "alias sp el = set print elements", "alias -x a = print", "alias bt = backtrace",
                  "alias a*b = print", "alias pp2 = print /x", "alias pp3 = pp2")
    got = assert_like_gdb([*commands, str(prog)], prog.parent)
    assert "Alias already exists: fb\n" in got.stderr


def _mi_created(command: list[str], prog: Path) -> list[str]:
    lines = '-interpreter-exec console "alias fb = break"\n-interpreter-exec console "fb twice"\n-gdb-exit\n'
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([*command, "-nx", "-q", "-i=mi", str(prog)], input=lines, capture_output=True,
                         text=True, cwd=prog.parent, env=env, timeout=PATIENCE)
    return re.findall(r'^=breakpoint-created,bkpt=\{number="(\d+)".*func="(\w+)"', run.stdout, re.M)


def test_an_alias_over_mi_tells_what_its_command_made(prog: Path) -> None:
    gdb = gdb_path()
    assert gdb is not None
    expected = _mi_created([gdb], prog)
    assert _mi_created([sys.executable, "-m", "aliceserver"], prog) == expected == [("1", "twice")]
