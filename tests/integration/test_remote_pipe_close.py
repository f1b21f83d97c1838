"""Closing a pipe to `gdbserver --multi -` (gdb's `target extended-remote | gdbserver
--multi -`, then quit or disconnect): the stub is told to end before its input ends, as
gdb's pipe_close ends it, so it neither floods the stderr it shares with us ("Remote side
has terminated connection.  GDBserver will reopen the connection.", in a loop) nor outlives
the link, also where the shell stays between us and it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import PATIENCE
from tests.support.build import Builder
from tests.support.gdbserver import assert_gone, gdbserver_path
from tests.support.mi_client import ROOT

pytestmark = pytest.mark.timeout(120)


def _stubs_in(directory: Path) -> list[int]:
    """The gdbservers running in `directory` (each run here has its own)."""
    found = []
    for name in os.listdir("/proc"):
        try:
            if not name.isdigit() or Path(f"/proc/{name}/cwd").resolve() != directory:
                continue
            if b"gdbserver" in Path(f"/proc/{name}/cmdline").read_bytes():
                found.append(int(name))
        except OSError:
            continue
    return found


@pytest.mark.parametrize("command", ["{gdbserver} --multi -", "{gdbserver} --multi - ; true"],
                         ids=["exec-by-shell", "shell-stays"])  # fmt: skip
@pytest.mark.parametrize("ending", ["-gdb-exit", "disconnect"])
def test_the_stub_ends_with_its_pipe(builder: Builder, tmp_path: Path, command: str, ending: str) -> None:
    prog = builder.build("cli_prog")
    target = "| " + command.format(gdbserver=gdbserver_path())
    lines = [f"-target-select extended-remote {target}", '-interpreter-exec console "info os msg"']
    lines += ['-interpreter-exec console "disconnect"', "-gdb-exit"] if ending == "disconnect" else ["-gdb-exit"]
    run = subprocess.run([sys.executable, "-m", "aliceserver", "-nx", "-q", "-i=mi", str(prog)],
                         input="\n".join(lines) + "\n", capture_output=True, text=True, cwd=tmp_path,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=PATIENCE)  # fmt: skip
    assert "^connected" in run.stdout
    assert run.stderr.count("GDBserver will reopen the connection") <= 1, run.stderr[:300]
    for pid in _stubs_in(tmp_path.resolve()):
        assert_gone(pid)
