"""A stack deeper than 256 frames (a 300-level recursion) in the console and MI, against
gdb 13: `bt`, `-stack-list-frames` without a range and `up N` reach every frame (they
stopped at 256: bt printed 256 of 303, `up 290` said the initial frame was selected), and
`bt N` shows N frames."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import List

pytestmark = [needs_gdb, pytest.mark.timeout(300)]
DEPTH = "300"


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("deep_stack")


def test_console_backtrace_and_up_reach_every_frame_like_gdb(prog: Path) -> None:
    commands = ("break bottom", f"run {DEPTH}", "bt -3", "bt 2", "up 290", "up 20", "frame", "down 299", "bt")
    got = assert_like_gdb([*ex(*commands), str(prog)], prog.parent)
    assert "#301" in got.stdout  # the whole stack: main is frame 301


def _levels(mi: MiClient) -> list[str]:
    stack = mi.ok("-stack-list-frames").results["stack"]
    assert isinstance(stack, List)
    return [str(frame.get("level")) for frame in stack.values]  # type: ignore[union-attr]


def test_mi_stack_list_frames_without_a_range_lists_every_frame_like_gdb(prog: Path) -> None:
    seen: list[list[str]] = []
    for gdb in (True, False):
        mi = MiClient(["-i=mi", "-q", "-nx", str(prog)], cwd=prog.parent, gdb=gdb)
        try:
            mi.prompt()
            mi.ok(f"-exec-arguments {DEPTH}")
            mi.ok("-break-insert bottom")
            mi.ok("-exec-run")
            mi.stopped()
            seen.append(_levels(mi))
        finally:
            mi.close()
    assert len(seen[0]) == 302  # bottom, 300 descends, main
    assert seen[1] == seen[0]
