"""The server's side of the call-record rings (trace_rings.py) against a producer written
here as the trampolines write: records of one and several slots, the wrap with a record
running into the overhang, released claims."""

from __future__ import annotations

import struct

from aliceserver.debuggers.ptrace.patches.trace_rings import (
    CALL,
    HEAD,
    RELEASED,
    RETURN,
    RING_HEADER,
    SLOT,
    TID,
    RingLayout,
    decode,
    header_word,
    release_thread,
    slots_for,
    take,
)

LAYOUT = RingLayout(rings=2, capacity=8, traces=4)


class Producer:
    """One thread's writes into ring `index`, as trace_trampoline.py's code makes them."""

    def __init__(self, memory: bytearray, index: int, key: int, tid: int) -> None:
        self.memory, self.ring = memory, LAYOUT.ring(index)
        struct.pack_into("<Q", memory, LAYOUT.claims + 8 * index, key)
        struct.pack_into("<Q", memory, self.ring + TID, tid)

    def write(self, kind: int, trace: int, values: tuple[int, ...]) -> tuple[int, ...] | None:
        head, tail = struct.unpack_from("<2Q", self.memory, self.ring)
        slots = slots_for(len(values))
        if head - tail > LAYOUT.capacity - slots:
            return None  # full: dropped
        record = (header_word(kind, slots, trace), 1000 + head, 0x7FFF0000, *values)
        at = self.ring + RING_HEADER + SLOT * (head & (LAYOUT.capacity - 1))
        struct.pack_into(f"<{len(record)}Q", self.memory, at, *record)
        struct.pack_into("<Q", self.memory, self.ring + HEAD, head + slots)
        return record


def drained(memory: bytearray) -> dict[int, list[tuple[int, ...]]]:
    out: dict[int, list[tuple[int, ...]]] = {}
    for chunk in take(memoryview(memory), LAYOUT):
        out.setdefault(chunk.tid, []).extend(decode(chunk, LAYOUT.capacity))
    return out


def test_records_across_the_wrap_come_back_in_order() -> None:
    memory = bytearray(LAYOUT.size)
    producer = Producer(memory, 0, key=0x7F0000001000, tid=42)
    sent = [producer.write(CALL, 1, (9, n)) for n in range(2)]  # two-slot records then at 3 and 7
    got: list[tuple[int, ...] | None] = []
    for round_ in range(6):  # one, then two-slot records: the ring wraps with one in the overhang
        for n in range(3):
            values = (round_, n) if n != 1 else tuple(range(9))  # 9 values: two slots
            record = producer.write(CALL if n % 2 == 0 else RETURN, 1, values)
            assert record is not None
            sent.append(record)
        for record in drained(memory).get(42, []):
            count = record[0] >> 8 & 0xFF
            got.append(record[: 3 + (9 if count == 2 else 2)])
    assert got == sent


def test_a_full_ring_drops_and_released_claims_are_skipped() -> None:
    memory = bytearray(LAYOUT.size)
    first = Producer(memory, 0, key=0x1000, tid=7)
    written = [first.write(CALL, 2, (n,)) for n in range(10)]
    assert written.count(None) == 2  # eight slots
    second = Producer(memory, 1, key=0x2000, tid=8)
    second.write(CALL, 3, (5,))
    assert release_thread(memoryview(memory), LAYOUT, 7)
    assert struct.unpack_from("<Q", memory, LAYOUT.claims)[0] == RELEASED
    assert list(drained(memory)) == [8]  # the released ring is not read
