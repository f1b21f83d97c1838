"""The server's side of the call-record rings (trace_rings.py) against a producer written
here as the trampolines write: records of one and several slots, the wrap with a record
running into the overhang, released claims."""

from __future__ import annotations

import struct

from aliceserver.debuggers.ptrace.patches.trace_rings import (
    CALL,
    HEAD,
    MASK,
    MIN_BUDGET,
    RELEASED,
    RETURN,
    RING_HEADER,
    SLOT,
    TID,
    RingLayout,
    decode,
    header_word,
    in_order,
    init_rings,
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


def test_ring_zero_larger_and_one_slot_records_in_order_across_the_wrap() -> None:
    """A budget's layout: ring 0 larger than the others, each ring's mask in its header for
    the trampoline; `in_order` gives a wrapped ring's one-slot records as written."""
    layout = RingLayout.for_budget(MIN_BUDGET * 4, rings=3)
    assert layout.first == MIN_BUDGET * 4 // 2 // SLOT and layout.capacity_of(1) == MIN_BUDGET * 4 // 4 // 2 // SLOT
    assert layout.ring(1) == layout.ring(0) + layout.first_ring_bytes
    assert layout.ring(2) == layout.ring(1) + layout.ring_bytes and layout.size == layout.ring(3)
    memory = bytearray(layout.size)
    init_rings(memoryview(memory), layout)
    assert [struct.unpack_from("<Q", memory, layout.ring(i) + MASK)[0] for i in range(3)] == [
        layout.capacity_of(i) - 1 for i in range(3)
    ]
    ring, capacity = layout.ring(1), layout.capacity
    struct.pack_into("<Q", memory, layout.claims + 8, 0x3000)
    struct.pack_into("<Q", memory, ring + TID, 9)
    sent: list[tuple[int, ...]] = []
    for round_ in range(3):  # each round 3/4 of the ring: the second and third wrap
        for n in range(capacity * 3 // 4):
            head = struct.unpack_from("<Q", memory, ring + HEAD)[0]
            record = (header_word(CALL, 1, 1), head, 0x7FFF0000, round_, n, 0, 0, 0)
            struct.pack_into("<8Q", memory, ring + RING_HEADER + SLOT * (head & (capacity - 1)), *record)
            struct.pack_into("<Q", memory, ring + HEAD, head + 1)
            sent.append(record)
        (chunk,) = take(memoryview(memory), layout)
        data = in_order(chunk)
        assert list(struct.iter_unpack("<8Q", data)) == decode(chunk, capacity) == sent
        sent.clear()
