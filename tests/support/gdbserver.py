"""Real gdbserver for the remote backend's tests: started on a loopback port the kernel
picks (`127.0.0.1:0`, gdbserver prints the port), and ended with what it debugs."""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from aliceserver.debuggers.events import Exited, Stopped
from aliceserver.debuggers.remote.process import RemoteProcess
from tests.support.elf import load_base, symbol_value

_START_TIMEOUT = 10.0


@dataclass
class GdbServer:
    process: subprocess.Popen[bytes]
    port: int
    inferior_pid: int | None  # None for `--multi` before a `run`
    stderr: bytearray

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"


def gdbserver_path() -> str:
    found = shutil.which("gdbserver")
    if found is None:
        pytest.skip("gdbserver not installed")
    return found


def _read_until(
    process: subprocess.Popen[bytes], seen: bytearray, pattern: bytes
) -> re.Match[bytes]:
    assert process.stderr is not None
    deadline = time.monotonic() + _START_TIMEOUT
    while True:
        found = re.search(pattern, seen)
        if found:
            return found
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"gdbserver did not say {pattern!r}: {bytes(seen)!r}")
        ready, _, _ = select.select([process.stderr], [], [], left)
        if ready:
            chunk = os.read(process.stderr.fileno(), 4096)
            if not chunk:
                raise RuntimeError(f"gdbserver ended: {bytes(seen)!r}")
            seen += chunk


@contextmanager
def gdbserver(
    program: Path | None, args: Sequence[str] = (), *, multi: bool = False,
    env: Mapping[str, str] | None = None, wrapper: Sequence[str] = (),
) -> Iterator[GdbServer]:
    """`gdbserver 127.0.0.1:0 PROGRAM ARGS...` (or `--multi` without a program), in `env`
    (the program's environment too), run by `wrapper` (a command that ends in exec'ing
    its arguments); on the way out gdbserver and the program it started are killed, and
    the program must be gone."""
    command = [*wrapper, gdbserver_path(), *(["--multi"] if multi else []), "127.0.0.1:0"]
    if program is not None:
        command += [str(program), *args]
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, start_new_session=True,
                               env=dict(env) if env is not None else None)  # fmt: skip
    seen = bytearray()
    inferior: int | None = None
    try:
        if program is not None:
            inferior = int(_read_until(process, seen, rb"pid = (\d+)").group(1))
        port = int(_read_until(process, seen, rb"Listening on port (\d+)").group(1))
        yield GdbServer(process, port, inferior, seen)
    finally:
        if inferior is not None:
            _kill(inferior)
        if process.poll() is None:
            process.kill()
        process.wait()
        assert process.stderr is not None
        process.stderr.close()
        if inferior is not None:
            assert_gone(inferior)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def assert_gone(pid: int, grace: float = 3.0) -> None:
    """Process `pid` ends (or is a zombie its new parent reaps) within `grace` seconds."""
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return
        if state in ("Z", "X"):
            return
        time.sleep(0.05)
    raise AssertionError(f"gdbserver's program {pid} was left running")


def connect(server: GdbServer) -> RemoteProcess:
    return RemoteProcess.connect(server.address, timeout=10)


def runtime_address(server: GdbServer, program: Path, name: str) -> int:
    """Where symbol `name` of `program` lies in the program gdbserver started."""
    assert server.inferior_pid is not None
    return load_base(server.inferior_pid, program) + symbol_value(program, name)


def expect_stop(event: Stopped | Exited) -> Stopped:
    assert isinstance(event, Stopped), event
    return event
