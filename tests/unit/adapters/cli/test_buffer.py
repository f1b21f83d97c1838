"""The daemon's event buffer: bounded by count and bytes, oldest dropped and counted."""

from __future__ import annotations

from aliceserver.adapters.cli.buffer import EventBuffer, describe
from aliceserver.debuggers.events import Exited, Output, Stopped, StopReason


def test_events_are_described_and_kept_in_order() -> None:
    buffer = EventBuffer()
    buffer.observe("p-1", Output("stdout", "hi\n"))
    buffer.observe("p-1", Stopped(StopReason.BREAKPOINT, 7))
    buffer.observe("p-1", Exited(pid=1, code=3))
    entries, dropped = buffer.read(0)
    assert [(e.kind, e.text) for e in entries] == [
        ("stdout", "hi\n"), ("stopped", "stopped (breakpoint) in thread 7"), ("exited", "exited with code 3"),
    ]  # fmt: skip
    assert dropped == 0
    assert buffer.read(2)[0][0].kind == "exited"
    assert buffer.read(3, wait=0) == ([], 0)


def test_the_oldest_go_first_and_are_counted() -> None:
    buffer = EventBuffer(max_events=5, max_bytes=10_000)
    for index in range(12):
        buffer.append("p-1", "stdout", f"{index}\n")
    entries, dropped = buffer.read(0)
    assert [e.text for e in entries] == ["7\n", "8\n", "9\n", "10\n", "11\n"]
    assert dropped == 7 and buffer.stats()["dropped"] == 7
    assert buffer.read(9) == (entries[2:], 0)  # seq 10 on ("7\n" was seq 8)

    by_size = EventBuffer(max_events=1000, max_bytes=1000)
    for _ in range(10):
        by_size.append("p-1", "stdout", "x" * 200)
    assert by_size.stats()["bytes"] <= 1000 and by_size.stats()["buffered"] == 3
    assert by_size.read(0)[1] == 7


def test_modules_and_progress_are_not_kept() -> None:
    from aliceserver.debuggers.events import Progress

    assert describe(Progress("index", "indexing")) is None
    assert EventBuffer().clear() == 0
