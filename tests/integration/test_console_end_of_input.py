"""The console's end of input from a pipe, as gdb 13 ends it (event-top.c
command_line_handler): no `quit` echoed (readline prints it at a terminal only), then the
quit command as if typed: nothing more without a program, its question answered Y ("input
not from terminal") while a program is live. We echoed `quit` and asked nothing.

Real builds: a small C program, the same lines piped to gdb 13 and to aliceserver, the
whole output compared."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.mi_client import PATIENCE, ROOT

pytestmark = [needs_gdb, pytest.mark.timeout(120)]

_SOURCE = """
#include <stdio.h>
int twice(int x) { return 2 * x; }
int main(void) { printf("%d\\n", twice(21)); return 0; }
"""
_PIDS = re.compile(r"process \d+")


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("end_of_input")
    (where / "prog.c").write_text(_SOURCE)
    subprocess.run(["gcc", "-g", "-O0", "-o", "prog", "prog.c"], cwd=where, check=True)
    return where / "prog"


def _piped(program: Path, lines: str, gdb: bool) -> str:
    front = ["gdb"] if gdb else [sys.executable, "-m", "aliceserver"]
    done = subprocess.run(
        [*front, "-nx", "-q", "-iex", "set style enabled off", program.name], input=lines,
        capture_output=True, text=True, cwd=program.parent, timeout=PATIENCE,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(program.parent)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = done.stdout + done.stderr
    text = "".join(line for line in text.splitlines(keepends=True) if "libthread_db" not in line)
    return _PIDS.sub("process N", text)


@pytest.mark.parametrize(
    "lines",
    ["print 1\n", "break twice\nrun\n"],
    ids=["no program", "a live program"],
)
def test_end_of_piped_input_quits_as_gdb(program: Path, lines: str) -> None:
    ours = _piped(program, lines, gdb=False)
    assert ours == _piped(program, lines, gdb=True)
    assert "quit" not in ours.splitlines()[-1]
