"""Entry values of an inline frame's parameters, compared with gdb 13.

gdb reads an inline frame's parameter at its entry where the frame's real function starts
(get_frame_func), not where the inlined call does, and takes the value from the call site
of that real function: an inlined body that starts after other code has no entry values
(inline_entry.c's late_body: x=5, with no x@entry=4 taken from late's b), one that starts
at the function's first instruction has them (early_body: x=x@entry=5). glibc's futex
wait shows the same in a thread blocked in pthread_cond_wait (libc6-dbg: skipped where
gdb shows no inlined __futex_abstimed_wait_common64 frame).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.mi_client import MiClient, mi_stopped_at
from tests.support.mi_grammar import List, Tuple

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def test_inline_frames_entry_values_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("inline_entry", ("-g", "-O2"))
    late, early = (marker_line("inline_entry.c", name) for name in ("late", "early"))
    got = assert_like_gdb([*ex(f"break inline_entry.c:{late}", f"break inline_entry.c:{early}", "run", "bt",
                               "info args", "up", "info args", "continue", "bt", "frame"), str(program)],
                          tmp_path)  # fmt: skip
    assert "early_body (x=x@entry=" in got.stdout  # the inlined call at the entry has them


def _mi_frames(program: Path, cwd: Path, *, gdb: bool) -> list[object]:
    """At each inlined call's stop: the frames' arguments as MI lists them."""
    seen: list[object] = []
    with mi_stopped_at(
        program, f"inline_entry.c:{marker_line('inline_entry.c', 'late')}", cwd, gdb=gdb
    ) as mi:
        mi.ok(f"-break-insert inline_entry.c:{marker_line('inline_entry.c', 'early')}")
        for stop in range(2):
            if stop:
                mi.ok("-exec-continue")
                mi.stopped()
            for command in (
                "-stack-list-arguments 2",
                "-stack-list-arguments 1 0 0",
                "-stack-list-variables 1",
            ):
                seen.append(mi.ok(command).results)
            seen.append(_thread_frames(mi))
    return seen


def _thread_frames(mi: MiClient) -> list[object]:
    """Each thread's frame in -thread-info (not its LWP or core, which differ by run)."""
    threads = mi.ok("-thread-info").results["threads"]
    assert isinstance(threads, List)
    frames: list[object] = []
    for thread in threads.values:
        assert isinstance(thread, Tuple)
        frames.append(thread.get("frame"))
    return frames


def test_inline_frames_entry_values_in_mi_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("inline_entry", ("-g", "-O2"))
    assert _mi_frames(program, tmp_path, gdb=False) == _mi_frames(program, tmp_path, gdb=True)


def _futex_frames(program: Path, cwd: Path, *, gdb: bool) -> list[object]:
    """A worker blocked in pthread_cond_wait: the threads' frames, then the worker's
    first two frames' arguments."""
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        mi.ok("-break-insert hit")
        mi.ok("-exec-run")
        mi.stopped()
        seen = _thread_frames(mi)
        seen.append(mi.ok("-stack-list-arguments --thread 2 2 0 1").results)
        seen.append(mi.ok("-stack-list-arguments --thread 2 1 0 1").results)
        return seen
    finally:
        mi.close()


def test_libc_inlined_futex_wait_entry_values_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("futex_waiter")
    expected = _futex_frames(program, tmp_path, gdb=True)
    if "__futex_abstimed_wait_common64" not in repr(expected[1]):
        pytest.skip(
            "gdb shows no inlined __futex_abstimed_wait_common64 frame here (libc6-dbg, glibc 2.35+)"
        )
    assert _futex_frames(program, tmp_path, gdb=False) == expected
