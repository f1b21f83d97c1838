"""What gdb 13 prints when the leader exits alone (main's pthread_exit, leader_exits.c)
while its other thread runs on: gdb's linux-nat finds it a zombie (check_zombie_leaders)
at its next wait and deletes its thread, `[Thread ... exited]` (MI: =thread-exited), before
the other thread's stop; `info threads` there lists that thread alone. At the end the
kernel gives the leader's exit status, the process's, once the last other thread is
reaped: gdb adds the leader back for it, `[New process N]` (=thread-created) before the
`[Inferior 1 (process N) exited normally]` (its =thread-exited then)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder, marker_line

pytestmark = [needs_gdb, pytest.mark.timeout(180)]
SOURCE = "leader_exits.c"
_COMMANDS = (f"break {SOURCE}:{marker_line(SOURCE, 'zombie')}", "run", "info threads", "continue",
             "info threads", "continue")  # fmt: skip


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("leader_exits")


def _shown(done: subprocess.CompletedProcess[str], kept: str) -> str:
    # The signal stops in libc (its source file missing): its lines are not this test's.
    lines = [line for line in normalized(done.stdout).splitlines() if re.search(kept, line)]
    text = "\n".join(line for line in lines if "pthread_kill" not in line)
    return re.sub(r"LWP \d+", "LWP N", text)


def _both(prog: Path, args: list[str], kept: str = "") -> tuple[str, str]:
    args = [*args, "-batch", "-nx", *ex(*_COMMANDS), str(prog)]
    return _shown(ours(args, prog.parent), kept), _shown(theirs(args, prog.parent), kept)


def test_the_leader_exited_alone_is_told_as_gdb(prog: Path) -> None:
    got, expected = _both(prog, [])
    assert got == expected
    assert re.search(
        r"^\[New Thread 0x[0-9a-f]+ \(LWP N\)\]\n\[Thread 0x[0-9a-f]+ \(LWP N\) exited\]\n"
        r"\[Switching to Thread",
        got,
        re.M,
    ), got
    assert got.endswith("exited]\n[New process N]\n[Inferior 1 (process N) exited normally]"), got


def test_the_leader_exited_alone_in_mi_as_gdb(prog: Path) -> None:
    # (gdb -i=mi shows an -ex `info threads` as a *stopped record: those are not compared;
    # -thread-info at the stop lists thread 2 alone, under both)
    got, expected = _both(prog, ["-i=mi"], kept=r'^(=thread-(created|exited)|~"\[)')
    assert got == expected
    assert '=thread-exited,id="1"' in got and '=thread-created,id="3"' in got, got
