"""Run the same MI commands through gdb 13 and through us (`-nx -q -i=mi PROGRAM`, the
commands on stdin) and keep the records a test compares: what may differ between two runs
(pids, cores, libthread_db's lines, the records of starting a process) is dropped."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from tests.support.batch import PATIENCE
from tests.support.gdb import gdb_path
from tests.support.mi_client import ROOT

# Records that tell of the process's start and end, which the compared commands do not make
_DROPPED = re.compile(r'^(\(gdb\) ?$|=(library-loaded|thread-created|thread-exited|thread-group-started|'
                      r'thread-group-exited|breakpoint-modified)|~"\[Thread debugging|~"Using host libthread|'
                      r'\*running|\^running)')  # fmt: skip


def transcript(debugger: str, program: Path, commands: Sequence[str], cwd: Path) -> list[str]:
    """`debugger` is "gdb" or "ours"; the records kept, in order."""
    if debugger == "gdb":
        found = gdb_path()
        assert found is not None
        command = [found]
    else:
        command = [sys.executable, "-m", "aliceserver"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([*command, "-nx", "-q", "-i=mi", str(program)], input="\n".join([*commands, "-gdb-exit"]) + "\n",
                         capture_output=True, text=True, cwd=cwd, env=env, timeout=PATIENCE)  # fmt: skip
    kept = [line for line in run.stdout.splitlines() if not _DROPPED.match(line)]
    # a pid in `info inferiors` is padded to its column: the padding goes with it
    return [re.sub(r"process \d+ *", "process P ", re.sub(r',core="\d+"', "", line)) for line in kept]


def both(program: Path, commands: Sequence[str], cwd: Path) -> tuple[list[str], list[str]]:
    """(gdb's records, ours) for `commands`."""
    return transcript("gdb", program, commands, cwd), transcript("ours", program, commands, cwd)
