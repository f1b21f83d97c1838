"""gdb's `thread name [NAME]` (the selected thread's user name, shown by info threads,
thread apply, a stop's `Thread N "name" hit` and MI -thread-info; no NAME clears it) and
`thread find REGEX` (gdb's basic regular expressions), against gdb 13 on a two-thread
program."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import PATIENCE, ex, needs_gdb, normalized, ours, theirs
from tests.support.gdb import gdb_path
from tests.support.mi_client import ROOT

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_SOURCE = """\
#include <pthread.h>
void hit(void) {}
void done(void) {}
static void *worker(void *arg) { hit(); return arg; }
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pthread_join(t, 0);
  done();
  return 0;
}
"""


@pytest.fixture
def prog(tmp_path: Path) -> Path:
    (tmp_path / "threads.c").write_text(_SOURCE)
    program = tmp_path / "prog"
    subprocess.run(["gcc", "-g", "-O0", "-pthread", "-o", str(program), "threads.c"], cwd=tmp_path, check=True)
    return program


def _shown(text: str) -> str:
    """Where the main thread is when the worker stops is the scheduler's choice: rows and
    headers lose their frames; thread ids lose their numbers."""
    text = re.sub(r"LWP \d+", "LWP N", normalized(text))
    text = re.sub(r"0x7ffff[0-9a-f]+", "0x7ffff...", text)
    text = re.sub(r"^([* ] \d+ +Thread .*?\)(?: \"[^\"]*\")?) .*$", r"\1", text, flags=re.M)
    text = re.sub(r"^  Id +Target Id +Frame $", "  Id Target Id Frame", text, flags=re.M)
    text = re.sub(r"^#0  .*$", "#0  ...", text, flags=re.M)  # thread 1's frame, its source line
    return re.sub(r"^\d+\t\S+: No such file or directory\.(?:\n|$)", "", text, flags=re.M)


def test_thread_name_and_find_like_gdb(prog: Path) -> None:
    commands = ex("thread name early", "thread find x", "break hit", "run", "info threads",
                  "thread name foo bar", "info threads", "thread find foo", "thread find prog",
                  "thread find LWP", "thread find zzz", "thread find", "thread find (", "thread find \\(",
                  "thread find o\\|prog", "thread find p+rog", "thread name", "info threads 2", "thread 1",
                  "thread name  x  ", "thread apply all p 1", "thread nam y", "thread fi ^y$", "break done",
                  "continue", "info threads")
    args = ["-batch", "-nx", *commands, str(prog)]
    expected, got = theirs(args, prog.parent), ours(args, prog.parent)
    assert _shown(got.stdout + got.stderr) == _shown(expected.stdout + expected.stderr)
    assert "Thread 2 has name 'foo bar'\n" in got.stdout and 'Thread 1 "y" hit Breakpoint 2, done ()' in got.stdout


def _mi_names(command: list[str], prog: Path) -> list[str]:
    lines = '-break-insert hit\n-exec-run\n-interpreter-exec console "thread name foo"\n-thread-info\n-gdb-exit\n'
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([*command, "-nx", "-q", "-i=mi", str(prog)], input=lines, capture_output=True,
                         text=True, cwd=prog.parent, env=env, timeout=PATIENCE)
    listed = next(line for line in run.stdout.splitlines() if line.startswith("^done,threads="))
    return re.findall(r'\{id="(\d+)",target-id="[^"]*",name="([^"]*)"', listed)


def test_mi_thread_info_shows_the_user_name(prog: Path) -> None:
    gdb = gdb_path()
    assert gdb is not None
    expected = _mi_names([gdb], prog)
    assert _mi_names([sys.executable, "-m", "aliceserver"], prog) == expected == [("1", "prog"), ("2", "foo")]
