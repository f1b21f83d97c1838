"""`run` after `break` takes the process the break's symbol probe started (held at its
first instruction) when the run would start it alike; a run that differs (arguments, the
environment, the working directory or the terminal set after the break, a second run, a
start at the first instruction) must start as gdb's does, never the probe's. Compared with
gdb 13's -batch, stdin given to both."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import PATIENCE, ex, needs_gdb, normalized
from tests.support.build import Builder
from tests.support.gdb import gdb_path
from tests.support.mi_client import ROOT

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=PATIENCE,
                          input="typed line\n")  # fmt: skip


def _both(builder: Builder, tmp_path: Path, commands: list[str]) -> tuple[str, str]:
    """gdb's and our stdout and stderr (normalized) for `commands` on probe_start."""
    prog = builder.build("probe_start", flags=("-g", "-O0"))
    (tmp_path / "sub").mkdir(exist_ok=True)
    args = ["-batch", "-nx", *ex(*commands), str(prog)]
    env = dict(os.environ, PROBE_VAR="from the start")
    gdb = gdb_path()
    assert gdb is not None
    theirs = _run([gdb, *args], tmp_path, env)
    ours_env = dict(env, PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""))
    ours = _run([sys.executable, "-m", "aliceserver", *args], tmp_path, ours_env)
    return (normalized(theirs.stdout + "\n--\n" + theirs.stderr),
            normalized(ours.stdout + "\n--\n" + ours.stderr))  # fmt: skip


@pytest.mark.parametrize("commands", [
    ["break main", "run", "info inferiors", "continue"],  # taken: stdin, environment as given
    ["break main", "set args one 'two words'", "run", "continue"],
    ["break main", "set environment PROBE_VAR=set after the break", "run", "continue"],
    ["break main", "unset environment PROBE_VAR", "run", "continue"],
    ["break main", "set cwd sub", "run", "continue"],
    ["break main", "tty /dev/null", "run", "continue"],
    ["break main", "run", "run", "continue"],
    ["break main", "starti", "info inferiors", "continue", "continue"],
])  # fmt: skip
def test_run_after_break_starts_as_gdb(builder: Builder, tmp_path: Path, commands: list[str]) -> None:
    expected, got = _both(builder, tmp_path, commands)
    assert got == expected
