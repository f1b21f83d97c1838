"""A 30,000-frame recursion under MI against gdb 13: -stack-info-depth counts every frame
(it stopped at 256) and -stack-list-frames pages deep down the stack (past 4,096 frames)
and at its bottom show gdb's frames, unwound on from where the last page stopped."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.mi_client import MiClient, mi_stopped_at
from tests.support.mi_grammar import List, Tuple

pytestmark = [needs_gdb, pytest.mark.timeout(300)]
PAGES = ((0, 4), (15000, 15004), (29990, 30010))


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("deep_stack")


def _frames(mi: MiClient, low: int, high: int) -> list[tuple[str, ...]]:
    stack = mi.ok(f"-stack-list-frames {low} {high}").results["stack"]
    assert isinstance(stack, List)
    return [
        tuple(str(frame.get(key)) for key in ("level", "addr", "func", "line"))
        for frame in stack.values
        if isinstance(frame, Tuple)
    ]


def _session(prog: Path, gdb: bool) -> tuple[list[list[tuple[str, ...]]], str, str]:
    with mi_stopped_at(prog, "bottom", prog.parent, gdb=gdb) as mi:
        pages = [_frames(mi, low, high) for low, high in PAGES]
        depth = str(mi.ok("-stack-info-depth").results["depth"])
        capped = str(mi.ok("-stack-info-depth 100").results["depth"])
        return pages, depth, capped


def test_deep_pages_and_depth_are_gdbs(prog: Path) -> None:
    ours, theirs = _session(prog, gdb=False), _session(prog, gdb=True)
    assert theirs[1] == "30002"  # bottom, 30,000 descend frames, main
    assert ours == theirs
