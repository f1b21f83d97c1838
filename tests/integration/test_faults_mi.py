"""The MI front end under faults: the server signalled, the client gone."""

from __future__ import annotations

import signal
import time
from pathlib import Path

from tests.support.build import Builder
from tests.support.mi_client import MiClient


def _pid_of_program(lines: list[str]) -> int:
    for line in lines:
        if line.startswith("=thread-group-started"):
            return int(line.split('pid="')[1].split('"')[0])
    raise AssertionError(f"no =thread-group-started in {lines}")


def _gone(pid: int, patience: float = 10.0) -> bool:
    """The program is gone: not running, not stopped, and reaped (no zombie left)."""
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        if not Path(f"/proc/{pid}").exists():
            return True
        time.sleep(0.05)
    return False


def _stopped_session(builder: Builder, tmp_path: Path) -> tuple[MiClient, int]:
    mi = MiClient(["-i=mi", "-q", str(builder.build("mi_prog"))], cwd=tmp_path)
    mi.prompt()
    mi.ok("-break-insert main")
    mi.ok("-exec-run")
    mi.stopped()
    return mi, _pid_of_program(mi.lines)


def test_sigterm_kills_the_launched_program_then_exits(builder: Builder, tmp_path: Path) -> None:
    mi, pid = _stopped_session(builder, tmp_path)
    mi.process.send_signal(signal.SIGTERM)
    assert mi.process.wait(timeout=30) != 0
    mi.close()
    assert _gone(pid)


def test_end_of_input_kills_the_launched_program(builder: Builder, tmp_path: Path) -> None:
    mi, pid = _stopped_session(builder, tmp_path)
    assert mi.process.stdin is not None
    mi.process.stdin.close()
    assert mi.process.wait(timeout=30) == 0
    mi.close()
    assert _gone(pid)
