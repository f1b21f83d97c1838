"""Threads parked at one pc whose arguments are entry values with a value of their own
(entryplans.py: a call value's plan is kept by its bytes, each thread's frames read
through it). tests/programs/entry_threads.c: `id` in spin is DW_OP_entry_value(rdi),
middle's call value for it DW_OP_entry_value(rdi) again, worker's a register holding
each thread's own id. -thread-info at the first stop shows each thread's, as gdb 13."""

from __future__ import annotations

import platform
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.mi_client import MiClient, mi_stopped_at, thread_info_frames
from tests.support.mi_grammar import List

pytestmark = [
    pytest.mark.skipif(
        platform.machine() != "x86_64", reason="the call values checked are x86-64 gcc's"
    ),
    pytest.mark.timeout(120),
]


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("entry_threads", ("-g", "-O2", "-pthread"))


def _spinning(mi: MiClient) -> list[tuple[str, ...]]:
    """Each thread in spin: its -thread-info arguments, then -stack-list-arguments' with
    entry values (gdb's NAME@entry), sorted."""
    seen = []
    for thread, frame, shown in thread_info_frames(mi):
        if str(frame["func"]) != "spin":
            continue
        listed = mi.ok(f"-stack-list-arguments --thread {thread['id']} 1 0 0").results["stack-args"]
        seen.append((*shown, str(listed.values) if isinstance(listed, List) else ""))
    return sorted(seen)


def _session(prog: Path, gdb: bool) -> list[list[tuple[str, ...]]]:
    with mi_stopped_at(prog, "all_parked", prog.parent, gdb=gdb) as mi:
        first = _spinning(mi)
        mi.ok("-gdb-set print entry-values both")
        both = _spinning(mi)
    return [first, both]


@needs_gdb
def test_threads_at_one_pc_show_their_own_entry_values(prog: Path) -> None:
    ours, theirs = _session(prog, gdb=False), _session(prog, gdb=True)
    assert ours == theirs
    expected = [
        (f"id={n}", f"id@entry={n}", "kind=2", "kind@entry=2") for n in ("1", "11", "21", "31")
    ]
    assert [shown[:4] for shown in ours[0]] == expected
