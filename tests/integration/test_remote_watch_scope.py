"""A watchpoint on a frame's locals over a stub dies with the frame, as gdb's over the same
kind of stub does: when the function returns (a continue, a `next` out of it), and when
it is left by longjmp and a later write fires the watch. Both debug through a gdbserver of
their own (`set sysroot /`); the console's output is compared."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder, marker_line
from tests.support.gdbserver import gdbserver

pytestmark = [needs_gdb, pytest.mark.timeout(120)]


Run = Callable[[list[str], Path], "subprocess.CompletedProcess[str]"]


def _console(run: Run, program: Path, commands: Sequence[str], cwd: Path) -> str:
    with gdbserver(program) as server:
        lines = ["set sysroot /", f"target remote {server.address}", *commands]
        done = run(["-batch", "-nx", *ex(*lines), str(program)], cwd)
    text = normalized(done.stdout + "\n--stderr--\n" + done.stderr)
    text = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text)
    return re.sub(r"Thread \d+\.\d+", "Thread P.T", text)


def _both(program: Path, commands: Sequence[str], cwd: Path) -> tuple[str, str]:
    return _console(theirs, program, commands, cwd), _console(ours, program, commands, cwd)


@pytest.fixture
def program(builder: Builder) -> Path:
    return builder.build("watch_scope")


def test_watch_on_a_local_ends_when_its_frame_returns(program: Path, tmp_path: Path) -> None:
    # the first watch ends as compute(3) returns to a continue, the second as a next leaves compute(4)
    gdb, alice = _both(program, ["break compute", "continue", "watch acc", *["continue"] * 4,
                                 "info watchpoints", "continue", "watch acc", *["next"] * 15,
                                 "info watchpoints"], tmp_path)  # fmt: skip
    assert alice == gdb
    assert alice.count("deleted because the program has left the block") == 2
    assert alice.count("No watchpoints.") == 2


def test_watch_on_a_local_left_by_longjmp_ends_at_the_next_write(program: Path, tmp_path: Path) -> None:
    jumper = marker_line("watch_scope.c", "jumper")
    # the third continue: reuse() writes over jumper's old frame
    gdb, alice = _both(program, [f"break watch_scope.c:{jumper}", "continue", "watch slot", *["continue"] * 3,
                                 "bt 1", "info watchpoints"], tmp_path)  # fmt: skip
    assert alice == gdb
    assert "deleted because the program has left the block" in alice and "#0  reuse" in alice


def test_finish_out_of_a_watched_frame_says_both(program: Path, tmp_path: Path) -> None:
    gdb, alice = _both(program, ["break compute", "continue", "watch acc", "delete 1", *["finish"] * 5,
                                 "info watchpoints", "next"], tmp_path)  # fmt: skip
    assert alice == gdb
    assert "left the block" in alice and "Value returned is $1 = 6" in alice and "No watchpoints." in alice


def test_steps_over_a_stub_go_on_past_a_trap_the_watch_rules_pass_over(builder: Builder, tmp_path: Path) -> None:
    """A false condition or an ignored hit lets a `finish` or `next` go on; a trap that
    leaves the thread where the step's range ends (the next line) ends the step there, as
    gdb's over the same stub (repeating the move would run past it)."""
    program = builder.build("daily_flow")
    gdb, alice = _both(program, ["break add", *["continue"] * 3, "watch total if total > 5", "finish",
                                 *["next"] * 3, "ignore 2 1", "finish", *["next"] * 4, "info breakpoints"],
                       tmp_path)  # fmt: skip
    assert alice == gdb
    assert "Old value = 3\nNew value = 6\n" in alice and "New value = 10\n" not in alice
    assert "Breakpoint 1, add (value=4)" in alice and "add (value=5)" not in alice
