"""termdebug's terminal mode: the console interpreter, then `new-ui mi PTY` on a terminal.

The MI channel is a pty whose settings the server must leave alone: the client sees its own
commands echoed by the kernel and every line ending in \\r\\n (CLIENTS.md, reference 10).
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from tests.support.build import Builder
from tests.support.mi_client import PATIENCE, ROOT
from tests.support.mi_grammar import check_transcript


class Reader:
    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.data = b""
        self.pos = 0  # what the test has looked at

    def until(self, needle: bytes) -> bytes:
        """The output from where the last wait ended up to and including `needle`."""
        start = self.pos
        while needle not in self.data[start:]:
            ready, _, _ = select.select([self.fd], [], [], PATIENCE)
            assert ready, f"waited for {needle!r}; got {self.data[start:]!r}"
            chunk = os.read(self.fd, 65536)
            assert chunk, f"end of output while waiting for {needle!r}: {self.data[start:]!r}"
            self.data += chunk
        self.pos = self.data.index(needle, start) + len(needle)
        return self.data[start : self.pos]


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("mi_prog")


def test_new_ui_on_a_pty(prog: Path) -> None:
    # The console runs on a pty of its own too, as in a Vim :terminal.
    cli_master, cli_slave = pty.openpty()
    mi_master, mi_slave = pty.openpty()
    before = termios.tcgetattr(mi_slave)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen(
        [sys.executable, "-m", "aliceserver", "-quiet", "-iex", "set pagination off", "-iex",
         "set mi-async on", "-ex", "echo startupdone\\n", str(prog)],
        stdin=cli_slave, stdout=cli_slave, stderr=cli_slave, cwd=prog.parent, env=env, start_new_session=True,
    )
    os.close(cli_slave)
    cli, mi = Reader(cli_master), Reader(mi_master)
    try:
        cli.until(b"startupdone")
        cli.until(b"(gdb) ")
        os.write(cli_master, f"server new-ui mi {os.ttyname(mi_slave)}\r".encode())
        cli.until(b"New UI allocated")
        assert mi.until(b"(gdb) \r\n") == b'=thread-group-added,id="i1"\r\n(gdb) \r\n'
        os.write(mi_master, b"-break-insert add\r")
        out = mi.until(b"(gdb) \r\n")
        assert out.startswith(b"-break-insert add\r\n^done,bkpt={number=\"1\"")  # the kernel's echo
        os.write(mi_master, b"-exec-run\r")
        out = mi.until(b"*stopped")
        out += mi.until(b"\r\n")
        assert b"^running\r\n*running,thread-id=\"all\"\r\n(gdb) \r\n" in out
        assert b'reason="breakpoint-hit"' in out
        # The console's `continue` shows on the MI channel as *running / *stopped.
        os.write(cli_master, b"continue\r")
        out = mi.until(b"*stopped")
        assert b"*running" in out and b"^running" not in out
        os.write(mi_master, b"disassemble $pc\r")
        out = mi.until(b"^done\r\n")
        assert b'&"disassemble $pc\\n"' in out and b"~\"=> 0x" in out
        assert termios.tcgetattr(mi_slave)[3] == before[3]  # lflag: ECHO, ICANON untouched
        os.write(cli_master, b"quit\r")
        cli.until(b"Quit anyway? (y or n) ")  # gdb asks a person at a terminal: the program lives
        os.write(cli_master, b"y\r")
        assert process.wait(timeout=PATIENCE) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        lines = [line for line in mi.data.decode("utf-8", "replace").split("\r\n") if line]
        echoed = {"-break-insert add", "-exec-run", "disassemble $pc"}
        errors = check_transcript(lines, echoed)
        for fd in (cli_master, mi_master, mi_slave):
            os.close(fd)
    assert not errors, errors
