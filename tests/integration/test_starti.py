"""gdb's `starti`: the program started and stopped before its first instruction (the
loader's `_start`), told as "Program stopped." with the frame; a `stepi` from there is one
instruction (the kernel's report of the exec call's return is no step), and the program
goes on to its breakpoints and end as after `run`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import PATIENCE, ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder
from tests.support.gdb import gdb_path
from tests.support.mi_client import ROOT

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


def _shown(run_output: str) -> str:
    # stack addresses differ: gdb adds LINES and COLUMNS to the environment
    return re.sub(r"0x7ff[0-9a-f]{9}\b(?! <)", "0x7ff...", normalized(run_output))


def test_starti_then_steps_and_run_like_gdb(builder: Builder, tmp_path: Path) -> None:
    prog = builder.build("cli_prog")
    commands = ex("starti", "info registers rip", "x/2i $pc", "stepi", "stepi", "info registers rip",
                  "break main", "continue", "info frame", "kill")
    args = ["-batch", "-nx", *commands, str(prog)]
    expected, got = theirs(args, tmp_path), ours(args, tmp_path)
    assert _shown(got.stdout + got.stderr) == _shown(expected.stdout + expected.stderr)
    assert "\nProgram stopped.\n" in got.stdout and "Breakpoint 1, main" in got.stdout


def _mi_stops(command: list[str], prog: Path, cwd: Path) -> list[str]:
    lines = '-interpreter-exec console "starti"\n-exec-step-instruction\n-exec-continue\n-gdb-exit\n'
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([*command, "-nx", "-q", "-i=mi", str(prog)], input=lines, capture_output=True,
                         text=True, cwd=cwd, env=env, timeout=PATIENCE)
    return [re.sub(r',core="\d+"', "", line) for line in run.stdout.splitlines() if line.startswith("*stopped")]


def test_starti_over_mi_stops_with_signal_0(builder: Builder, tmp_path: Path) -> None:
    prog = builder.build("cli_prog")
    gdb = gdb_path()
    assert gdb is not None
    expected = _mi_stops([gdb], prog, tmp_path)
    got = _mi_stops([sys.executable, "-m", "aliceserver"], prog, tmp_path)
    assert got == expected
    assert got[0].startswith('*stopped,reason="signal-received",signal-name="0",signal-meaning="Signal 0"')
    assert 'func="_start"' in got[1] and got[2] == '*stopped,reason="exited-normally"'


def test_stepi_from_a_fork_event_stop_as_gdb(builder: Builder, tmp_path: Path) -> None:
    """After `catch fork` the program stands inside the fork call: gdb's first `stepi` is the
    call's return (the pc unchanged), the second one instruction."""
    prog = builder.build("fork")
    args = ["-batch", "-nx", *ex("catch fork", "run", "p/x $pc", "stepi", "p/x $pc", "stepi", "p/x $pc",
                                 "kill"), str(prog)]
    pcs, outputs = [], []
    for run in (theirs, ours):
        outputs.append(run(args, tmp_path).stdout)
        pcs.append(re.findall(r"^\$\d+ = (0x[0-9a-f]+)$", outputs[-1], re.M))
    assert pcs[1] == pcs[0]
    assert "Program received signal" not in outputs[0] + outputs[1]  # a step, not a SIGTRAP
    assert len(pcs[1]) == 3 and pcs[1][0] == pcs[1][1] != pcs[1][2]
