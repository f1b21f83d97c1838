"""`info tracepoints [NUMBERS]` (`info tp`) and `delete tracepoints [NUMBERS]` (`delete tr`)
as gdb 13 has them: the breakpoint table with its tracepoints only ("No tracepoints.",
"No tracepoint matching 'N'."); delete with numbers takes any breakpoint as `delete` does,
without them every tracepoint (and only those), after a yes from a person."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder
from tests.support.mi_script import both

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


def test_info_and_delete_tracepoints_in_the_console(builder: Builder, tmp_path: Path) -> None:
    prog = builder.build("cli_prog")
    got = assert_like_gdb([*ex("info tracepoints", "trace add", "break main", "info tracepoints", "info tp 1",
                               "info tp 2", "delete tracepoints 2", "delete tracepoints 9", "trace main", "delete tr 1",
                               "info breakpoints", "break main", "delete tracepoints", "info breakpoints",
                               "delete tracepoints", "info tp 1-3", "info tp"), str(prog)], tmp_path)  # fmt: skip
    assert got.stdout.count("No tracepoints.") == 2


def test_delete_tracepoints_over_mi(builder: Builder, tmp_path: Path) -> None:
    prog = builder.build("cli_prog")
    commands = ["-break-insert -a add", "-break-insert main", "-break-insert -a main",
                '-interpreter-exec console "delete tracepoints"', "-break-list"]  # fmt: skip
    expected, got = both(prog, commands, tmp_path)
    assert got == expected
    assert '=breakpoint-deleted,id="3"' in got and '=breakpoint-deleted,id="2"' not in got


def test_tstart_with_every_tracepoint_disabled(builder: Builder, tmp_path: Path) -> None:
    """gdb's start_tracing refuses before it asks the target when no tracepoint is enabled
    (a native target could not enable one later)."""
    prog = builder.build("cli_prog")
    got = assert_like_gdb([*ex("trace add", "disable 1", "tstart", "enable 1", "tstart", "break main", "run",
                               "tstart", "disable 1", "tstart", "kill"), str(prog)], tmp_path)  # fmt: skip
    assert got.stdout.count("No tracepoints enabled, not starting trace") + got.stderr.count(
        "No tracepoints enabled, not starting trace") == 2
