"""gdb.mi/new-ui-mi-sync.exp's rule: a synchronous run started on an MI channel holds only
that channel's input; the console (another UI) still runs commands, so its `interrupt`
stops the program and the MI command typed meanwhile runs after the *stopped."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_mi_newui import Reader
from tests.support.build import Builder
from tests.support.mi_client import PATIENCE, ROOT


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("longrun")


def test_console_interrupts_a_synchronous_mi_run(prog: Path) -> None:
    cli_master, cli_slave = pty.openpty()
    mi_master, mi_slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen(
        [sys.executable, "-m", "aliceserver", "-quiet", "-nx", "-ex", "echo startupdone\\n", str(prog)],
        stdin=cli_slave, stdout=cli_slave, stderr=cli_slave, cwd=prog.parent, env=env, start_new_session=True,
    )
    os.close(cli_slave)
    cli, mi = Reader(cli_master), Reader(mi_master)
    try:
        cli.until(b"startupdone")
        cli.until(b"(gdb) ")
        os.write(cli_master, f"new-ui mi {os.ttyname(mi_slave)}\r".encode())
        cli.until(b"New UI allocated")
        mi.until(b"(gdb) \r\n")
        os.write(mi_master, b"-exec-run\r")
        mi.until(b"*running")
        os.write(mi_master, b"456-thread-info\r")  # read only once the program stops
        cli.until(b"tick 2")  # in main: an interrupt in the dynamic loader tells no signal
        os.write(cli_master, b"interrupt\r")
        out = mi.until(b"456^")  # before the fix: never, `interrupt` waited behind it
        assert b'*stopped,reason="signal-received"' in out
        out = mi.until(b"(gdb) \r\n")
        assert b'state="stopped"' in out
        os.write(cli_master, b"kill\r")
        cli.until(b"Kill the program being debugged? (y or n) ")  # gdb asks a person at a terminal
        os.write(cli_master, b"y\r")
        cli.until(b"killed]")
        os.write(cli_master, b"quit\r")
        assert process.wait(timeout=PATIENCE) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for fd in (cli_master, mi_master, mi_slave):
            os.close(fd)
