"""Call records in rings of a patch area's data region: one ring per thread, no lock per record.

The data region the tracing trampolines (trace_trampoline.py) write, as the server reads it:

    header (64 bytes)
    counters         TRACES x 2 qwords: records of trace N dropped (calls, returns)
    claims           RINGS qwords: the key of the thread owning ring i (0: free)
    ring 0 .. RINGS-1, each: head, tail, mask, tid, in a 64-byte header, then
                     its capacity in slots of 64 bytes and MAX_SLOTS - 1 slots of overhang

Ring 0, taken by the first thread to record (the main thread, usually: the hot one of most
programs), may be larger than the others (`first_capacity`): a burst of records must fit in
the ring itself, since the server copies them out only when its threads get the GIL. Each
ring's `mask` (capacity - 1), written by the server when the area is made, is what the
trampoline reads.

A thread names itself by its fs base (the thread pointer, unique among live threads). On
its first record (its key in no claim) it takes the first free claim by `lock cmpxchg` of
its key, and writes its tid (one gettid) into the ring's header; from then on the ring has
one producer and no
atomic instruction is needed: the record is written, then `head` moves past it (x86 keeps
the stores in order, so the server never sees a head ahead of its record). Threads beyond
RINGS get no ring: their records are counted as dropped, as those of a full ring are. A
full ring never blocks the program. When a thread has exited (and its ring is drained) the
server writes RELEASED over its claim: a later thread given the same thread pointer by the
C library (it reuses stacks) takes a ring of its own, with its own tid, and a released ring
may be taken again.

One producer per ring assumes a thread does not record from a signal handler that
interrupted its own record (the handler's record could be overwritten), and a vfork child,
which runs on its parent's memory until it execs, records into its parent thread's ring
(under that thread's id) while the parent waits.

A record is 1 to MAX_SLOTS slots: a header qword (kind | slots << 8 | trace << 16), the
timestamp (rdtsc), the CFA, then its values (argument or return registers, stack qwords).
One whose slots run past the last slot goes on into the overhang, so that every record is
contiguous; the next starts at slot 0 again. The server (`take`) copies the slots from tail
to head through its own mapping while the program runs, moves tail, and decodes the copy
later (`decode`).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Final

SLOT: Final = 64
MAX_SLOTS: Final = 4
RECORD_VALUES: Final = MAX_SLOTS * 8 - 3  # values a record may hold
HEADER: Final = 64
RING_HEADER: Final = 64
HEAD, TAIL, MASK, TID = 0, 8, 16, 24  # in a ring's header
CALL, RETURN = 1, 2  # record kinds
MIN_CAPACITY: Final = 1024  # slots per ring at least (a budget's floor: see MIN_BUDGET)
MIN_BUDGET: Final = 2 * 16 * MIN_CAPACITY * 64  # bytes (2 MiB): 16 rings and their copies
MAX_BUDGET: Final = 2 << 30  # bytes: a ring's size stays within the trampoline's disp32
RELEASED: Final = 1  # a claim whose thread has exited (no thread pointer is 1)
_QWORD = struct.Struct("<Q")
_SLOT_WORDS = struct.Struct("<8Q")
_PIECE = SLOT * 8192  # bytes unpacked in one call: other threads (the ring copier) run between


@dataclass(frozen=True, slots=True)
class RingLayout:
    """Where everything is, in bytes from the start of the rings' block."""

    rings: int = 16
    capacity: int = 1 << 18  # slots per ring (16 MiB, touched as used), a power of two
    traces: int = 1024  # trace numbers 1 .. traces - 1
    first_capacity: int = 0  # ring 0's slots (0: `capacity`), a power of two

    def __post_init__(self) -> None:
        for slots in (self.capacity, self.first):
            assert slots & (slots - 1) == 0 and slots >= MAX_SLOTS

    @classmethod
    def for_budget(cls, budget: int, rings: int = 16) -> RingLayout:
        """Ring 0 half of `budget` bytes, the other rings a quarter between them, the last
        quarter for the server's copies of records not yet decoded (CallRecorder)."""

        def power(slots: int) -> int:
            return 1 << max(MIN_CAPACITY.bit_length(), slots.bit_length()) - 1

        others = power(budget // 4 // max(rings - 1, 1) // SLOT)
        return cls(rings=rings, capacity=others, first_capacity=power(budget // 2 // SLOT))

    @property
    def first(self) -> int:
        return self.first_capacity or self.capacity

    def capacity_of(self, index: int) -> int:
        return self.first if index == 0 else self.capacity

    @property
    def slots(self) -> int:
        """Slots of every ring together."""
        return self.first + (self.rings - 1) * self.capacity

    @property
    def counters(self) -> int:
        return HEADER

    @property
    def claims(self) -> int:
        return self.counters + 16 * self.traces

    @property
    def ring_bytes(self) -> int:
        """Bytes of each ring but ring 0."""
        return RING_HEADER + SLOT * (self.capacity + MAX_SLOTS - 1)

    @property
    def first_ring_bytes(self) -> int:
        return RING_HEADER + SLOT * (self.first + MAX_SLOTS - 1)

    @property
    def first_ring(self) -> int:
        return -(-(self.claims + 8 * self.rings) // SLOT) * SLOT

    def ring(self, index: int) -> int:
        if index == 0:
            return self.first_ring
        return self.first_ring + self.first_ring_bytes + (index - 1) * self.ring_bytes

    @property
    def size(self) -> int:
        return self.ring(self.rings)


def init_rings(memory: memoryview, layout: RingLayout) -> None:
    """Each ring's mask, which the trampolines read (a new area's data is zeros)."""
    for index in range(layout.rings):
        _QWORD.pack_into(memory, layout.ring(index) + MASK, layout.capacity_of(index) - 1)


def header_word(kind: int, slots: int, trace: int) -> int:
    return kind | slots << 8 | trace << 16


def slots_for(values: int) -> int:
    """How many slots a record of `values` values takes."""
    return -(-(3 + values) // 8)


@dataclass(frozen=True, slots=True)
class Dropped:
    calls: int
    returns: int


def dropped(memory: memoryview, layout: RingLayout, trace: int) -> Dropped:
    """Records of `trace` dropped so far (full rings, threads with no ring)."""
    calls, returns = struct.unpack_from("<2Q", memory, layout.counters + 16 * trace)
    return Dropped(calls, returns)


def clear_counters(memory: memoryview, layout: RingLayout, trace: int) -> None:
    struct.pack_into("<2Q", memory, layout.counters + 16 * trace, 0, 0)


@dataclass(frozen=True, slots=True)
class Chunk:
    """A copy of one ring's records from `tail` to `head`: slots from index `first` on."""

    tid: int
    tail: int
    head: int
    first: int
    data: bytes
    capacity: int = 0  # its ring's slots (0: the layout's `capacity`)


def take(memory: memoryview, layout: RingLayout) -> list[Chunk]:
    """A copy of the records of each claimed ring holding any, the rings' tails moved past
    them: a memory copy, so that the rings empty faster than records are decoded."""
    chunks = []
    for index in range(layout.rings):
        capacity = layout.capacity_of(index)
        (key,) = _QWORD.unpack_from(memory, layout.claims + 8 * index)
        if key in (0, RELEASED):
            continue
        ring = layout.ring(index)
        head, tail = struct.unpack_from("<2Q", memory, ring)
        if head == tail:
            continue
        (tid,) = _QWORD.unpack_from(memory, ring + TID)
        first = tail & (capacity - 1)
        end = first + head - tail
        if end > capacity:  # wrapped: the whole ring, overhang included
            first, end = 0, capacity + MAX_SLOTS - 1
        slots = ring + RING_HEADER
        data = bytes(memory[slots + SLOT * first : slots + SLOT * end])
        _QWORD.pack_into(memory, ring + TAIL, head)
        chunks.append(Chunk(tid, tail, head, first, data, capacity))
    return chunks


def in_order(chunk: Chunk) -> bytes:
    """The slots of a chunk whose records take one slot each, in the order written."""
    capacity = chunk.capacity
    count = chunk.head - chunk.tail
    if chunk.first == chunk.tail & (capacity - 1):  # not wrapped: in position order
        return chunk.data[: SLOT * count]
    start, end = chunk.tail & (capacity - 1), chunk.head & (capacity - 1)
    if end > start:
        return chunk.data[SLOT * start : SLOT * end]
    return chunk.data[SLOT * start : SLOT * capacity] + chunk.data[: SLOT * end]


def decode(chunk: Chunk, capacity: int, single_slot: bool = False) -> list[tuple[int, ...]]:
    """The records of a chunk, each its qwords, header first. `single_slot`: every record
    takes one slot (then they are unpacked in one call)."""
    capacity = chunk.capacity or capacity
    mask = capacity - 1
    data = chunk.data
    if single_slot and chunk.first == chunk.tail & mask:  # no wrap: slots in position order
        view, out = memoryview(data), list[tuple[int, ...]]()
        for start in range(0, SLOT * (chunk.head - chunk.tail), _PIECE):  # the GIL let go between
            out += _SLOT_WORDS.iter_unpack(
                view[start : min(start + _PIECE, SLOT * (chunk.head - chunk.tail))]
            )
        return out
    records: list[tuple[int, ...]] = []
    append = records.append
    position, head = chunk.tail, chunk.head
    while position < head:
        index = position & mask
        run_end = min(head, position + capacity - index)  # records starting before the wrap
        words = _SLOT_WORDS.iter_unpack(memoryview(data)[SLOT * (index - chunk.first) :])
        while position < run_end:
            record = next(words)
            count = record[0] >> 8 & 0xFF
            if count > 1:
                for _ in range(count - 1):
                    record += next(words)
            elif count == 0:
                raise ValueError(
                    f"a record with no slots at {position} of thread {chunk.tid}'s ring"
                )
            append(record)
            position += count
    return records


def release_thread(memory: memoryview, layout: RingLayout, tid: int) -> bool:
    """The ring of exited thread `tid` given back (drain it first); False: it had none."""
    for index in range(layout.rings):
        ring = layout.ring(index)
        (key,) = _QWORD.unpack_from(memory, layout.claims + 8 * index)
        if key not in (0, RELEASED) and _QWORD.unpack_from(memory, ring + TID)[0] == tid:
            _QWORD.pack_into(memory, ring + TID, 0)
            _QWORD.pack_into(memory, layout.claims + 8 * index, RELEASED)
            return True
    return False
