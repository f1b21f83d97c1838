"""gdb's readline puts its screen size in gdb's environment (LINES, COLUMNS: 24 and 80 with
no terminal, the values already there kept), and the programs gdb starts inherit it: their
stack starts lower by its size. Ours, run with the same environment, sees the same."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.gdb import gdb_path
from tests.support.mi_client import ROOT

pytestmark = [needs_gdb, pytest.mark.timeout(120)]

_THREAD_DB = ("[Thread debugging using libthread_db", "Using host libthread_db")  # gdb's, not ours to copy


def _batch(debugger: list[str], program: Path, env: dict[str, str], commands: list[str],
           stderr: int = subprocess.PIPE) -> str:
    args = ["-nx", "-batch", "-ex", "set startup-with-shell off"]
    for command in commands:
        args += ["-ex", command]
    result = subprocess.run([*debugger, *args, str(program)], env=env, stdout=subprocess.PIPE, stderr=stderr,
                            text=True, timeout=60, stdin=subprocess.DEVNULL, cwd=program.parent)  # fmt: skip
    lines = [line for line in result.stdout.splitlines(keepends=True) if not line.startswith(_THREAD_DB)]
    return re.sub(r"\(process \d+\)", "(process N)", "".join(lines))


def _both(builder: Builder, extra: dict[str, str], commands: list[str],
          stderr: int = subprocess.PIPE) -> tuple[str, str]:
    program = builder.build("screen_env")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT), "HOME": "/", **extra}
    gdb = gdb_path()
    assert gdb is not None
    theirs = _batch([gdb], program, env, commands, stderr)
    ours = _batch([sys.executable, "-m", "aliceserver"], program, env, commands, stderr)
    return ours, theirs


def test_run_sees_gdbs_screen_size(builder: Builder) -> None:
    ours, theirs = _both(builder, {}, ["show environment LINES", "show environment COLUMNS", "run"])
    assert "LINES=24 COLUMNS=80 local=0x" in theirs  # no terminal: readline's 24 by 80
    assert ours == theirs  # the stack's addresses too


def test_unset_columns_then_run(builder: Builder) -> None:
    ours, theirs = _both(builder, {}, ["unset environment COLUMNS", "show environment COLUMNS", "run"])
    assert "LINES=24 COLUMNS=(unset) local=0x" in theirs
    assert ours == theirs


@pytest.mark.parametrize("extra", [{"LINES": "50"}, {"COLUMNS": "132", "LINES": "x"}], ids=["lines", "columns"])
def test_values_in_the_environment_kept(builder: Builder, extra: dict[str, str]) -> None:
    commands = ["set environment FOO=1", "set environment PATH=/bin", "show environment", "run"]
    ours, theirs = _both(builder, extra, commands)
    assert "COLUMNS=" in theirs
    assert ours == theirs  # the listing's order too: LINES in place, a set variable last


def test_terminal_on_stderr_only(builder: Builder) -> None:
    """stdin is no terminal: readline takes LINES from the environment, and COLUMNS from
    ncurses, which asks stderr's terminal when stdout is none."""
    controller, terminal = pty.openpty()
    try:
        fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 33, 111, 0, 0))
        ours, theirs = _both(builder, {"LINES": "50"}, ["run"], stderr=terminal)
    finally:
        os.close(terminal)
        os.close(controller)
    assert "LINES=50 COLUMNS=111 local=0x" in theirs
    assert ours == theirs
