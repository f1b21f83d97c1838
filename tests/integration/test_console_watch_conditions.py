"""Watchpoints with gdb 13's keywords and stop rules on one program (daily_flow.c):
`watch EXPR if COND`, `watch EXPR thread N` (and its errors: an unknown or invalid thread,
a task, a mask, junk), `condition N` and `ignore N` on a watchpoint, a write of an
unchanged value passed over, and two watchpoints on the same memory both told; a
`finish`, `next`, `until` or `advance` that meets a trap the rules pass over goes on to
its own end."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb
from tests.support.build import Builder

pytestmark = needs_gdb


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("daily_flow")


def test_watch_conditions_threads_and_ignore_counts_decide_the_stop(prog: Path) -> None:
    out = output_like_gdb(prog, [
        "break main", "run",
        "watch total if total > 3", "watch total thread 1", "watch total thread 9", "watch total thread foo",
        "rwatch total thread 1 if total > 0", "watch total task 1", "watch total mask 0xff",
        "watch total if nosuch > 1", "info breakpoints",
        "continue", "continue", "continue",
        "condition 2", "ignore 3 1", "continue", "info breakpoints", "delete", "kill",
    ])  # fmt: skip
    assert "\tstop only if total > 3\n" in out and "\tstop only in thread 1\n" in out
    assert "Hardware watchpoint 2: total\n\nOld value = 3\nNew value = 6\n" in out


def test_steps_go_on_past_a_trap_the_watch_rules_pass_over(prog: Path) -> None:
    """gdb judges the trap inside the step: a false condition or an ignored hit lets the
    `finish` return and the `next` end its line; a true one stops it, and a trap that
    leaves the thread on a breakpoint it has not run yet is that breakpoint's hit."""
    out = output_like_gdb(prog, [
        "break add", "run", "continue", "continue", "watch total if total > 5",
        "finish", "next", "next", "next", "ignore 2 1", "finish", "next", "next", "next", "next",
        "info breakpoints", "delete", "watch total if total > 100", "until", "until", "advance 29", "kill",
    ])  # fmt: skip
    assert "Hardware watchpoint 2: total\nmain () at " in out  # the finish returned, total 1 -> 3
    assert out.count("Old value = 3\nNew value = 6\n") == 1 and "New value = 10\n" not in out
    assert "Breakpoint 1, add (value=4)" in out and "Breakpoint 1, add (value=5)" not in out


def test_condition_on_a_watchpoint(prog: Path) -> None:
    out = output_like_gdb(prog, [
        "break main", "run", "watch total", "condition 2 total >= 6", "continue", "continue", "kill",
    ])  # fmt: skip
    assert "Old value = 3\nNew value = 6\n" in out and "Old value = 0\nNew value = 1" not in out


def test_a_condition_on_locals_is_tested_in_the_watchpoints_frame(prog: Path) -> None:
    """`watch total if i > 3` set in main traps in add: gdb tests i in main's frame; a
    condition on add's argument, given in add, in add's frame (the innermost of it)."""
    out = output_like_gdb(prog, [
        "break main", "run", "watch total if i > 3", "continue", "delete 2",
        "watch total", "condition 3 value > 1", "continue", "kill",
    ])  # fmt: skip
    assert "Old value = 6\nNew value = 10\n" in out
    assert "Old value = 10\nNew value = 15\n" in out


def test_read_and_write_watchpoints_on_one_variable(prog: Path) -> None:
    """x86 traps both for a write: only the write watchpoint tells a changed value; a
    read watchpoint stops for a read (gdb's bpstat_check_watchpoint)."""
    out = output_like_gdb(prog, [
        "break add", "run", "delete 1", "rwatch total", "watch total", "continue", "continue", "continue",
        "info watchpoints", "kill",
    ])  # fmt: skip
    assert "Hardware read watchpoint 2: total\n\nValue = 0\n" in out


def test_mi_watch_on_a_local_is_read_in_its_frame(builder: Builder) -> None:
    """-break-watch on main's local, with a condition, trapping in a callee: its value read
    in main's frame (not `<unreadable>` in func's), the condition tested there."""
    prog = builder.build("watch_local_callee")
    out = output_like_gdb(prog, [
        "break main", "run", 'interpreter-exec mi "-break-watch q"', 'interpreter-exec mi "-break-condition 2 q > 1"',
        "continue", "kill",
    ])  # fmt: skip
    assert "Old value = 1\nNew value = 2\n" in out
