"""Threads parked alike share frame 0's arguments made once per stop (twinthreads.py):
only where each register and each word read is the same or the same place in the thread's
own stack. Here seven threads park in wait_twin(): three alike, one with another `count`
in its stack slot, one called from elsewhere, two passing a pointer into their own stack,
and before the second stop main writes one alike thread's `count`. -thread-info must show
each thread's own values, as gdb does; and text they all point to outside their stacks,
read once for them all, as it is after the debugger writes it."""

from __future__ import annotations

import platform
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.mi_client import MiClient, mi_stopped_at
from tests.support.mi_grammar import List, Tuple

pytestmark = [
    pytest.mark.skipif(
        platform.machine() != "x86_64", reason="the program's futex wait is x86-64 assembly"
    ),
    pytest.mark.timeout(120),
]


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("parked_twins")


def _parked(mi: MiClient) -> list[dict[str, str]]:
    """Each wait_twin thread's frame-0 arguments in -thread-info, in the threads' order."""
    threads = mi.ok("-thread-info").results["threads"]
    assert isinstance(threads, List)
    seen = []
    for thread in threads.values:
        assert isinstance(thread, Tuple)
        frame = thread["frame"]
        if isinstance(frame, Tuple) and str(frame["func"]) == "wait_twin":
            args = frame["args"]
            assert isinstance(args, List)
            shown = {str(a["name"]): str(a["value"]) for a in args.values if isinstance(a, Tuple)}
            seen.append({**shown, "line": str(frame["line"])})
    return seen


def _session(prog: Path, gdb: bool) -> list[list[dict[str, str]]]:
    with mi_stopped_at(prog, "stopped", prog.parent, gdb=gdb) as mi:
        first = _parked(mi)
        mi.ok("-exec-continue")
        mi.stopped()
        return [first, _parked(mi)]


def test_threads_parked_alike_show_their_own_arguments(prog: Path) -> None:
    stops = _session(prog, gdb=False)
    expected = (["7", "7", "7", "8", "7", "7", "7"], ["7", "9", "7", "8", "7", "7", "7"])
    for stop, counts in zip(stops, expected, strict=True):
        assert [args["count"] for args in stop] == counts
        assert all(args["cell"].endswith("<shared_cell>") for args in stop[:5])
        own = [args["cell"] for args in stop[5:]]  # each a local of its own stack
        assert len(set(own)) == 2 and not any("shared_cell" in cell for cell in own)


@needs_gdb
def test_threads_parked_alike_as_gdb_shows_them(prog: Path) -> None:
    assert _session(prog, gdb=False) == _session(prog, gdb=True)


def test_text_outside_the_stacks_written_at_a_stop(prog: Path) -> None:
    """Text every thread points to outside its stack is described once for them all
    (sharedvalues.py) and not read again for the threads alike (twinthreads.py): after a
    write at the stop each shows it as it is now, as gdb does. The threads given another's
    description kept the old text (their kept arguments had not recorded its read)."""
    with mi_stopped_at(prog, "stopped", prog.parent, gdb=False) as mi:
        assert [args["tag"].rsplit(" ", 1)[1] for args in _parked(mi)] == ['"alike"'] * 7
        mi.ok("-interpreter-exec console \"set var tag_text[0] = 'X'\"")
        assert [args["tag"].rsplit(" ", 1)[1] for args in _parked(mi)] == ['"Xlike"'] * 7
