"""print's and call's options before `--` (gdb.base/printcmds.exp's `p -elements N --`), side
by side with gdb 13: each applies for that command only, abbreviated when unambiguous, with
gdb's errors for a wrong one; without `--` the text is all expression."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder, marker_line

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def test_print_options_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("print_limits")
    commands = ex(
        f"break print_limits.c:{marker_line('print_limits.c', 'main')}", "run",
        "p -elements 1 -- str", "p -elements 4 -- str", "p -elem 3 -- arr", "p -elements unlimited -- reps",
        "p -repeats 3 -elements 6 -- reps", "p -array-indexes -- arr", "p -array-indexes off -- arr",
        "p -elements 2 -- /x arr", "p -elements 3 --", "call -elements 2 -- arr", "p arr", "show print elements",
        "p -pretty -- arr", "p -pretty foo -- arr", "p -foo -- arr", "p -elements x -- arr", "p -a -- arr",
        "p -r -- arr", "p -- arr", "p -5", "p -elements 0 -- str", "p -address off -- &arr[1]",
    )
    got = assert_like_gdb([*commands, str(program)], tmp_path)
    assert '"a"...' in got.stdout


def test_console_complete_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """The console's complete (printcmds.exp: print's arguments get no location options)."""
    program = builder.build("print_limits")
    commands = ex("complete p -function", "complete p -line", "complete p -source", "complete set print ele",
                  "complete b mai", "complete whe", "set max-completions 2", "complete show print e")
    got = assert_like_gdb([*commands, str(program)], tmp_path)
    assert "b main\n" in got.stdout
