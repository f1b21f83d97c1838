"""Threads stopped at the same place share the description of a scalar holding the same
bytes (sharedvalues.py): each thread still shows its own values and, for one in memory,
its own address, and the threads that hold the same bytes show the same text."""

from __future__ import annotations

from typing import Any

import pytest

from aliceserver.debuggers.events import Stopped
from aliceserver.debuggers.model import VariableInfo, VariableScope
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.events import EventLog
from tests.support.session import launch

pytestmark = [pytest.mark.timeout(120)]

PROGRAM = PROGRAMS_DIR / "parked_threads.c"
WORKERS = 6


def parked_arguments(
    debugger: Any, events: EventLog, builder: Builder
) -> list[dict[str, VariableInfo]]:
    """Each worker's arguments of park(), in the order the threads are listed."""
    launch(debugger, builder.build("parked_threads"))
    [location] = debugger.resolve_location(f"parked_threads.c:{marker_line(PROGRAM, 'parked')}")
    debugger.insert_breakpoint(location.address)
    debugger.resume()
    stop = events.wait_for(Stopped, timeout=30)
    found = []
    for thread in debugger.threads():
        if thread.tid == stop.thread_id:
            continue
        frames = debugger.stack_trace(thread.tid, 0, 20)
        level = next(frame.level for frame in frames if frame.function == "park")
        found.append(
            {
                v.name: v
                for v in debugger.frame_variables(thread.tid, level, VariableScope.ARGUMENTS)
            }
        )
    return found


def test_each_thread_shows_its_own_arguments(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    threads = parked_arguments(debugger, events, builder)
    assert len(threads) == WORKERS
    indexes = sorted(int(args["index"].value) for args in threads)
    assert indexes == list(range(WORKERS))
    for args in threads:
        index = int(args["index"].value)
        assert args["pair"].value == str(index // 2)
        assert args["label"].value.endswith('"odd"' if index % 2 else '"even"')
        assert args["weight"].value == f"{index * 0.5:g}"
    # Each in its own thread's stack: the addresses differ though the texts are shared
    for name in ("index", "pair", "label", "weight"):
        addresses = {args[name].address for args in threads}
        assert None not in addresses and len(addresses) == WORKERS, name


def test_the_same_bytes_give_the_same_description(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    threads = {
        int(args["index"].value): args for args in parked_arguments(debugger, events, builder)
    }
    for first, second in ((0, 1), (2, 3), (0, 2)):  # the same pair, the same label
        shared = "pair" if first // 2 == second // 2 else "label"
        ours, theirs = threads[first][shared], threads[second][shared]
        assert (ours.value, ours.type, ours.reference) == (
            theirs.value,
            theirs.type,
            theirs.reference,
        )
        assert ours.address != theirs.address
    # the char * shows its own string at each thread: two texts for six threads
    assert {threads[i]["label"].value.split(" ", 1)[1] for i in range(WORKERS)} == {
        '"even"',
        '"odd"',
    }
    assert len({threads[i]["label"].value for i in range(WORKERS)}) == 2
