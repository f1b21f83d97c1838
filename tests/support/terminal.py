"""A debugger on a pseudo-terminal of its own, as a user's shell starts it: the terminal
is its controlling terminal and its process group the foreground one, so a ^C typed
(`type_ctrl_c`) is the terminal's SIGINT to that whole group.

With `job_control`, a small shell of ours leads the terminal's session and runs the
debugger as a job (a process group of its own, the foreground one), as bash does: a
Ctrl-Z that reaches the debugger suspends it then (a session leader's own group is
orphaned, and the kernel lets no terminal stop it), which the shell tells as
`[suspended]` before it kills the job."""

from __future__ import annotations

import os
import pty
import select
import shutil
import signal
import sys
import time
from pathlib import Path

from tests.support.mi_client import ROOT

PROMPT = b"(gdb) "
SUSPENDED = b"[suspended]"

_SHELL = r"""
import os, signal, sys
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
job = os.fork()
if job == 0:
    os.setpgid(0, 0)
    os.tcsetpgrp(0, os.getpid())
    signal.signal(signal.SIGTTOU, signal.SIG_DFL)
    os.execve(sys.argv[1], sys.argv[1:], os.environ)
while True:
    _, status = os.waitpid(job, os.WUNTRACED)
    if os.WIFSTOPPED(status):
        os.tcsetpgrp(0, os.getpgrp())
        os.write(1, b"\r\n[suspended]\r\n")
        os.kill(job, signal.SIGKILL)
        continue
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
"""


def debuggers() -> list[str]:
    """Ours, and gdb 13 where it is installed (the oracle the tests compare with)."""
    return ["aliceserver"] + (["gdb"] if shutil.which("gdb") else [])


def debugger_command(which: str, tmp_path: Path) -> tuple[list[str], dict[str, str]]:
    """The command line (options to add) and environment that start `which` ("gdb", or
    ours with a cache directory of its own under `tmp_path`) as a user's shell would."""
    env = {k: v for k, v in os.environ.items() if k != "DEBUGINFOD_URLS"}
    env["TERM"] = "dumb"
    if which == "gdb":
        return [str(shutil.which("gdb"))], env
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return [sys.executable, "-m", "aliceserver", "--cache-dir", str(tmp_path / "cache")], env


class Terminal:
    def __init__(
        self, argv: list[str], env: dict[str, str], cwd: Path, job_control: bool = False
    ) -> None:
        if job_control:
            argv = [sys.executable, "-c", _SHELL, *argv]
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # (the child: exec at once)
            try:
                os.chdir(cwd)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        self.output = b""

    def read_until(self, wanted: bytes, seconds: float = 60.0) -> bytes:
        """The output up to `wanted`'s next appearance (taken from the output read)."""
        end = time.monotonic() + seconds
        while wanted not in self.output:
            assert time.monotonic() < end, self.output.decode(errors="replace")
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(self.fd, 1 << 16)
                except OSError:  # (the server is gone)
                    chunk = b""
                assert chunk, self.output.decode(errors="replace")
                self.output += chunk
        said, _, self.output = self.output.partition(wanted)
        return said + wanted

    def command(self, line: str) -> str:
        """What `line` printed, up to the next prompt."""
        os.write(self.fd, line.encode() + b"\n")
        return self.read_until(PROMPT).decode(errors="replace")

    def type_ctrl_c(self) -> None:
        os.write(self.fd, b"\x03")  # the terminal's ^C: SIGINT to its foreground group

    def type_key(self, key: bytes) -> None:
        """A key the terminal signals by: ^Z (SIGTSTP), ^\\ (SIGQUIT), ^C (SIGINT)."""
        os.write(self.fd, key)

    def close(self, seconds: float = 60.0) -> int:
        """Wait for the server to end; its exit status. Past `seconds` (a failed test
        left it waiting), its process group is killed (the server's session: the
        program it debugs too)."""
        with_output = b""
        end = time.monotonic() + seconds
        while True:  # (drain: a full terminal would block its last writes)
            if time.monotonic() > end:
                _kill_session(self.pid)
                end = float("inf")
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 1 << 16)
            except OSError:
                break
            if not chunk:
                break
            with_output += chunk
        os.close(self.fd)
        _pid, status = os.waitpid(self.pid, 0)
        self.output += with_output
        return os.waitstatus_to_exitcode(status)


def _kill_session(sid: int) -> None:
    """Kill every process of the terminal's session (the shell's jobs are process groups
    of their own)."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getsid(int(entry)) == sid:
                    os.kill(int(entry), signal.SIGKILL)
            except OSError:
                pass  # gone, or not ours to ask
