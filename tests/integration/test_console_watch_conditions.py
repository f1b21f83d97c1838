"""Watchpoints with gdb 13's keywords and stop rules on one program (daily_flow.c):
`watch EXPR if COND`, `watch EXPR thread N` (and its errors: an unknown or invalid thread,
a task, a mask, junk), `condition N` and `ignore N` on a watchpoint, a write of an
unchanged value passed over, and two watchpoints on the same memory both told."""

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


def test_condition_on_a_watchpoint(prog: Path) -> None:
    out = output_like_gdb(prog, [
        "break main", "run", "watch total", "condition 2 total >= 6", "continue", "continue", "kill",
    ])  # fmt: skip
    assert "Old value = 3\nNew value = 6\n" in out and "Old value = 0\nNew value = 1" not in out
