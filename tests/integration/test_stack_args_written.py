"""Frame 0's stack arguments written at the stop (`set var`) show their new values under
MI as gdb 13 shows them: a read made for them may be served from the stack blocks the
thread's unwinding read at the stop (keptarguments.py), never after a write."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.mi_client import MiClient, mi_stopped_at, thread_info_frames

pytestmark = [pytest.mark.timeout(120)]


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("stack_args_written")


def _arguments(mi: MiClient) -> list[str]:
    """Frame 0's arguments as -thread-info shows them, then -stack-list-arguments'."""
    seen = [shown for _, _, args in thread_info_frames(mi) for shown in args]
    listed = mi.ok("-stack-list-arguments 1 0 0").results["stack-args"]
    return [*seen, str(listed)]


def _session(prog: Path, gdb: bool) -> list[list[str]]:
    with mi_stopped_at(prog, "take", prog.parent, gdb=gdb) as mi:
        before = _arguments(mi)
        mi.ok("-gdb-set var n = 42")
        mi.ok("-gdb-set var m = -5")
        return [before, _arguments(mi)]


@needs_gdb
def test_written_stack_arguments_show_their_new_values(prog: Path) -> None:
    ours, theirs = _session(prog, gdb=False), _session(prog, gdb=True)
    assert ours == theirs
    assert ours[0][:2] == ["n=7", "m=9"]
    assert ours[1][:2] == ["n=42", "m=-5"]
