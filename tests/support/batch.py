"""Run `aliceserver -batch ...` and `gdb -batch ...` on the same program and compare."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest

from tests.support.gdb import gdb_env, gdb_path
from tests.support.mi_client import ROOT

needs_gdb = pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle")
PATIENCE = 120.0


def ours(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "aliceserver", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=PATIENCE, stdin=subprocess.DEVNULL)


def ours_cached(program: Path, session: Sequence[str], cache: Path, log: Path | None = None,
                hooks: Path | None = None, env: Mapping[str, str] | None = None,
                by_file_command: bool = False) -> str:  # fmt: skip
    """The output of our SESSION (command-line options) on `program`, run in its directory
    with the index cache `cache`, a DEBUG log at `log`, the directory `hooks` first on
    PYTHONPATH (a sitecustomize.py of faults) and `env` added; it must exit 0.
    `by_file_command`: the program is given by a first `-ex 'file PROGRAM'`, not on the
    command line (where the server starts indexing it before its imports: programahead.py)."""
    paths = [str(hooks) if hooks is not None else "", str(ROOT), os.environ.get("PYTHONPATH", "")]
    full = dict(os.environ, **(env or {}), PYTHONPATH=os.pathsep.join(p for p in paths if p))
    logging = ["--log-file", str(log), "--log-level", "DEBUG"] if log is not None else []
    done = subprocess.run([sys.executable, "-m", "aliceserver", "--cache-dir", str(cache), *logging,
                           *(["-ex", f"file {program}", *session] if by_file_command
                             else [*session, str(program)])], capture_output=True, text=True, timeout=PATIENCE,
                          env=full, cwd=program.parent, stdin=subprocess.DEVNULL)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def theirs(args: list[str], cwd: Path, shell: str | None = None) -> subprocess.CompletedProcess[str]:
    """gdb's run; `shell` pins its startup shell ($SHELL, else /bin/sh, which is dash on
    Debian and reads `&>` and errors in its own words)."""
    gdb = gdb_path()
    assert gdb is not None
    env = dict(os.environ, SHELL=shell) if shell else None
    return subprocess.run([gdb, *args], cwd=cwd, capture_output=True, text=True, timeout=PATIENCE,
                          stdin=subprocess.DEVNULL, env=env)


def normalized(text: str) -> str:
    """What may differ between two runs: pids, stack addresses (gdb adds LINES and COLUMNS
    to the environment), and gdb's libthread_db lines, which have no counterpart here."""
    lines = [line for line in text.splitlines() if "libthread_db" not in line]
    text = "\n".join(lines)
    text = re.sub(r"process \d+", "process N", text)
    return re.sub(r"argv=0x[0-9a-f]+", "argv=0x...", text)


_RUST_PRINTERS_WARNING = re.compile(
    r"warning: Missing auto-load script at offset 0 in section \.debug_gdb_scripts\nof file .*\n"
    r"Use `info auto-load python-scripts \[REGEXP\]' to list them\.\n")


def assert_like_rust_gdb(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """assert_like_gdb for a Rust program: plain gdb does not find the toolchain's printers
    script its .debug_gdb_scripts names (rust-gdb adds its directory, as ours does), and
    that warning is the one difference allowed on the error stream."""
    args = ["-batch", "-nx", *args]
    expected, got = theirs(args, cwd), ours(args, cwd)
    assert (normalized(got.stdout), got.returncode) == (normalized(expected.stdout), expected.returncode)
    assert normalized(got.stderr) == normalized(_RUST_PRINTERS_WARNING.sub("", expected.stderr))
    return got


def assert_like_gdb(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`-batch -nx ARGS` under both: the same stdout, stderr and exit status."""
    args = ["-batch", "-nx", *args]
    expected, got = theirs(args, cwd), ours(args, cwd)
    assert (normalized(got.stdout), got.returncode) == (normalized(expected.stdout), expected.returncode)
    assert normalized(got.stderr) == normalized(expected.stderr)
    return got


def output_like_gdb(program: Path, commands: Sequence[str]) -> str:
    """`-batch -nx -ex C1 ... PROGRAM` under both, in the program's directory: the same
    stdout and stderr (the exit status not compared); ours, stdout then stderr."""
    args = ["-batch", "-nx", *ex(*commands), str(program)]
    expected, got = theirs(args, program.parent), ours(args, program.parent)
    assert normalized(got.stdout) == normalized(expected.stdout)
    assert normalized(got.stderr) == normalized(expected.stderr)
    return got.stdout + got.stderr


def batch_in_program_dir(command: list[str], commands: Sequence[str], program: Path) -> str:
    """`COMMAND -batch -nx -ex C1 ... PROGRAM` in the program's directory, its output
    (stdout and stderr together) normalized; the program's environment the same under
    gdb and us (no PYTHONPATH), so that stack addresses are the same too."""
    env = gdb_env()
    env["PYTHONPATH"] = str(ROOT)
    env["PWD"] = str(program.parent)  # gdb's shell exports its own
    args = ["-batch", "-nx"]
    for each in ("unset environment PYTHONPATH", "unset environment LINES",
                 "unset environment COLUMNS", *commands):  # fmt: skip
        args += ["-ex", each]
    done = subprocess.run([*command, *args, str(program)], cwd=program.parent, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=PATIENCE, stdin=subprocess.DEVNULL)  # fmt: skip
    return normalized(done.stdout)


def ex(*commands: str) -> list[str]:
    """gdb's command line for running COMMANDS in order: -ex C1 -ex C2 ..."""
    return [word for command in commands for word in ("-ex", command)]


def assert_script_like_gdb(script: Path, program: Path, cwd: Path, kept: Callable[[str], str]) -> str:
    """`-batch -nx -x SCRIPT PROGRAM` under both: the same exit status and the same output
    (stdout, then stderr) as far as `kept` keeps it; what it keeps of ours."""
    args = ["-batch", "-nx", "-x", str(script), str(program)]
    expected, got = theirs(args, cwd), ours(args, cwd)
    assert kept(got.stdout + got.stderr) == kept(expected.stdout + expected.stderr)
    assert got.returncode == expected.returncode
    return kept(got.stdout + got.stderr)
