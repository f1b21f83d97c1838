"""The MI front end under faults: the server signalled, the client gone."""

from __future__ import annotations

import signal
import subprocess
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


def _state(pid: int) -> tuple[str, int]:
    """(scheduler state letter, tracer pid) of a process."""
    status = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line
    )
    return status["State"].split()[0], int(status["TracerPid"])


def test_sigterm_detaches_an_attached_program_and_leaves_it_running(
    builder: Builder, tmp_path: Path
) -> None:
    program = subprocess.Popen([str(builder.build("longrun"))], stdout=subprocess.DEVNULL,
                               stdin=subprocess.DEVNULL)  # fmt: skip
    try:
        mi = MiClient(["-i=mi", "-q"], cwd=tmp_path)
        mi.prompt()
        mi.ok(f"-target-attach {program.pid}")
        mi.read_until(lambda line: line.startswith("*stopped"))
        assert _state(program.pid)[1] != 0  # traced now
        mi.ok("-break-insert tick")  # a trap the cleanup must take out of its code
        mi.process.send_signal(signal.SIGTERM)
        mi.process.wait(timeout=30)
        mi.close()
        time.sleep(0.5)  # it calls tick() every 20 ms: a trap left in would kill it
        state, tracer = _state(program.pid)
        assert program.poll() is None, "the attached program died with the server"
        assert tracer == 0 and state in ("S", "R"), (state, tracer)  # detached and running
    finally:
        program.kill()
        program.wait()
