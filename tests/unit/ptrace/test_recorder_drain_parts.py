"""CallRecorder.drain hands what was copied when a drain began in bounded parts, then {}."""

from __future__ import annotations

import struct
import threading

import pytest

from aliceserver.debuggers.ptrace import patched_calltrace
from aliceserver.debuggers.ptrace.patched_calltrace import CallRecorder
from aliceserver.debuggers.ptrace.patches.trace_rings import CALL, Chunk, RingLayout, header_word

LAYOUT = RingLayout(rings=1, capacity=64)


def chunk(tid: int, tail: int, count: int) -> Chunk:
    words = [
        w for n in range(tail, tail + count) for w in (header_word(CALL, 1, 1), n, 0, 0, 0, 0, 0, 0)
    ]
    return Chunk(tid, tail, tail + count, tail, struct.pack(f"<{len(words)}Q", *words))


def recorder(pending: dict[int, list[Chunk | tuple[int, ...]]]) -> CallRecorder:
    made = CallRecorder.__new__(CallRecorder)  # no program: only the drain's own state
    made.layout, made._lock, made._clock = LAYOUT, threading.Lock(), None
    made._areas, made._ended, made._several_areas, made._single_slot = {}, [], False, True
    made._pending, made._pending_slots = dict(pending), 0
    made._draining, made._drain_open = {}, False
    return made


def test_a_drain_comes_in_parts_and_ends_before_later_records(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(patched_calltrace, "DRAIN_SLOTS", 10)
    calls = recorder({7: [chunk(7, 0, 6), chunk(7, 6, 6), chunk(7, 12, 6)], 8: [chunk(8, 0, 4)]})
    first = calls.drain()
    assert list(first) == [7] and [r[1] for r in first[7]] == list(range(12))  # whole chunks
    calls._pending[7] = [chunk(7, 18, 3)]  # copied meanwhile: for the next drain
    second = calls.drain()
    assert [r[1] for r in second[7]] == list(range(12, 18)) and [r[1] for r in second[8]] == list(
        range(4)
    )
    assert calls.drain() == {}  # this drain has ended
    assert [r[1] for r in calls.drain()[7]] == [18, 19, 20]
    assert calls.drain() == {}
