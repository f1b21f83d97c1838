"""`bt N` tells "(More stack frames follow...)" only to a person (gdb's from_tty): not in
-batch, not from a -x script, but in MI's -interpreter-exec console; never after `bt -N`.
Qualifiers (full, -full, hide...) come before the count, an expression (`bt 1 full` is a
syntax error in gdb 13).
A script's last `output` leaves stdout without a newline, byte for byte as gdb's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.mi_client import mi_stopped_at

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def _break_args() -> list[str]:
    return ["-ex", f"break entry_expr.c:{marker_line('entry_expr.c', 'scaled')}", "-ex", "run"]


def test_batch_backtrace_with_a_count_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("entry_expr")
    args = _break_args()
    for command in ("bt 1", "bt 0", "bt -1", "bt 1 full", "bt full 1", "bt -hide -full 1", "bt 1.5", "bt 1 + 0"):
        args += ["-ex", command]
    got = assert_like_gdb([*args, str(program)], tmp_path)
    assert "#0  scaled" in got.stdout


def test_script_backtrace_and_final_output_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("entry_expr")
    script = tmp_path / "script.gdb"
    line = marker_line("entry_expr.c", "scaled")
    script.write_text(f"break entry_expr.c:{line}\nrun\nbt 1\necho x\noutput a1\nprint a2\noutput a1 + 1")
    got = assert_like_gdb(["-x", str(script), str(program)], tmp_path)
    assert got.stdout.endswith("x15$1 = 7\n16")  # no newline after the last output


def _mi_backtraces(program: Path, cwd: Path, *, gdb: bool) -> list[str]:
    with mi_stopped_at(program, f"entry_expr.c:{marker_line('entry_expr.c', 'scaled')}", cwd, gdb=gdb) as mi:
        seen = []
        for command in ("bt 1", "bt -1", "bt 0"):
            _, lines = mi.command(f'-interpreter-exec console "{command}"')
            seen.append("".join(line for line in lines if line.startswith("~")))
        return seen


def test_mi_console_says_more_frames_follow_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("entry_expr")
    ours = _mi_backtraces(program, tmp_path, gdb=False)
    assert ours == _mi_backtraces(program, tmp_path, gdb=True)
    assert "More stack frames follow" in ours[0]
