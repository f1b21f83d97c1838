"""`interpreter-exec` and `set prompt` side by side with gdb 13 (gdb.mi/mi2-prompt.exp,
mi-cmd-param-changed.exp): the console's `interpreter-exec mi` answers in MI records, a
console command run by the MI interpreter is echoed and answered `^done` inside the outer
answer, and a prompt keeps its trailing blank (in =cmd-param-changed and at the console)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.batch import PATIENCE, needs_gdb
from tests.support.gdb import gdb_path
from tests.support.mi_client import ROOT, MiClient

MI_COMMANDS = ['-interpreter-exec console "set prompt (banana) "', "-gdb-show prompt",
               'interpreter-exec mi "-gdb-set confirm off"', 'interpreter-exec mi "show confirm"',
               'interpreter-exec console "set confirm on"', "interpreter-exec foo bar"]
CONSOLE_SCRIPT = """set prompt (banana) \ninterpreter-exec mi -break-list
interpreter-exec mi "-gdb-set confirm off" "-gdb-show confirm"
interpreter-exec\ninterpreter-exec foo bar\ninterpreter-exec mi\ninterpreter-exec mi -nosuch
interpreter-exec mi "show confirm"\ninterpreter-exec console "show confirm"\nquit\n"""


def _mi_transcript(gdb: bool, cwd: Path) -> list[str]:
    mi = MiClient(["-i=mi", "-q", "-nx"], cwd=cwd, gdb=gdb)
    try:
        lines = mi.prompt()
        for command in MI_COMMANDS:
            lines += mi.command(command, token=False)[1]
    finally:
        mi.close()
    if not gdb:
        mi.check()
    return lines


@needs_gdb
def test_interpreter_exec_in_mi_like_gdb(tmp_path: Path) -> None:
    expected = _mi_transcript(True, tmp_path)
    assert '=cmd-param-changed,param="prompt",value="(banana) "' in expected
    assert _mi_transcript(False, tmp_path) == expected


@needs_gdb
def test_interpreter_exec_at_the_console_like_gdb(tmp_path: Path) -> None:
    def run(command: list[str]) -> str:
        done = subprocess.run([*command, "-q", "-nx"], input=CONSOLE_SCRIPT, capture_output=True, text=True,
                              cwd=tmp_path, timeout=PATIENCE, env=dict(os.environ, PYTHONPATH=str(ROOT)))
        return done.stdout + done.stderr

    gdb = gdb_path()
    assert gdb is not None
    expected = run([gdb])
    assert "(banana) ^done,BreakpointTable=" in expected
    assert run([sys.executable, "-m", "aliceserver"]) == expected
