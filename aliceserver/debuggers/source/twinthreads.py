"""Frame 0's variables shared by threads parked alike at one stop (1,000 threads blocked in
the same futex wait, listed by MI's -thread-info at the first stop).

Each thread's variables follow from its registers, the memory read while making them, the
debug info and the print settings (keptarguments.py keeps them across stops on that). Two
threads parked in the same call differ in where their stacks are: each register and each
word read is either the same or the other thread's stack address at the same offset in its
own stack area (the writable mapping its stack pointer is in; `areas`). Such a thread's
variables are the first one's, made once: the memory they read in the stack area is
compared at the same offsets (in spans planned once), a word that is an address in the
first thread's stack area allowed to be one at the same offset in the other's; outside it
the same memory at the same stop, nothing written since, gives the same bytes (not read
again). Not shared where a value or an address of one is in the first thread's stack area
(a pointer to a local, an argument on the stack: its text would differ), where something
not recorded was read (float registers, a printer) or an aggregate is shown (its children
read the first thread's stack). 1,000 threads in libc's futex wait, 6 arguments each with
their entry values: made, 350 us a thread; shared, tens.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from struct import unpack_from

from aliceserver.debuggers.model import VariableInfo
from aliceserver.debuggers.restamp import restamped
from aliceserver.errors import TargetError

Read = Callable[[int, int], bytes]
Reads = list[tuple[int, int, bytes]]
Areas = Callable[[], Sequence[tuple[int, int]]]  # the writable mappings, sorted (none: [])
_NUMBER = re.compile(r"0x[0-9a-fA-F]+|\d+")
_SPAN = 4096  # reads this close together are compared in one read
_MASK32 = (1 << 32) - 1


@dataclass(slots=True)
class _Made:
    start: int  # the first thread's stack area
    size: int
    reads: Reads  # every read made for them, with the bytes it gave
    infos: list[VariableInfo]
    referred: dict[int, object]  # what their references name (keptarguments.py)
    moving: list[int]  # those with an address in the stack area (_moved), by index
    # `reads` in the stack area as spans read at once (_spans), made at the first share,
    # and those outside it (each thread's own as they are)
    spans: list[_Span] | None = None
    outside: Reads | None = None


# (offset of its first byte in the stack area, its length, each read in it as (offset in
# the span, size, the first thread's bytes, their address))
_Span = tuple[int, int, list[tuple[int, int, bytes, int]]]


def stack_areas(target: object) -> Sequence[tuple[int, int]]:
    """The target's writable mappings where it can tell them (a live process's), else none."""
    areas: Callable[[], Sequence[tuple[int, int]]] | None = getattr(target, "writable_areas", None)
    return [] if areas is None else areas()


class TwinThreads:
    """The variables made at this stop, by what they follow from but the stack's place."""

    def __init__(self, areas: Areas) -> None:
        self._areas_of = areas
        self._areas: tuple[list[int], list[tuple[int, int]]] | None = None  # read once a stop
        self._made: dict[Hashable, _Made | None] = {}  # None: not to share

    def next_stop(self) -> None:
        self._areas = None
        self._made.clear()

    def thread(
        self, registers: Mapping[str, int], sp: str, how: Hashable, read: Read,
        blocks: Sequence[tuple[int, int, bytes]] = (),
    ) -> Twin | None:  # fmt: skip
        """The thread whose frame 0 has `registers`, for its variables made as `how`
        says; None where its stack area is not known (a core, a stub). `blocks`: what its
        unwinding read at this stop (nothing written since), whose bytes serve the share
        check's reads they hold."""
        area = self._area(registers.get(sp))
        if area is None:
            return None
        start, end = area
        # each register: its value, or (as a negative number) its offset in the stack area
        shape = tuple(
            [start - value - 1 if start <= value < end else value for value in registers.values()]
        )
        key = (how, end - start, tuple(registers), shape)
        return Twin(self, key, start, end - start, read, blocks)

    def _area(self, address: int | None) -> tuple[int, int] | None:
        if address is None:
            return None
        if self._areas is None:
            try:
                areas = sorted(self._areas_of())
            except (OSError, TargetError):
                areas = []
            self._areas = ([start for start, _ in areas], areas)
        starts, areas = self._areas
        index = bisect_right(starts, address) - 1
        if index < 0 or not areas[index][0] <= address < areas[index][1]:
            return None
        return areas[index]


class Twin:
    """One thread's side: the variables of a thread parked alike, or its own offered."""

    __slots__ = ("_twins", "_key", "_start", "_size", "_read", "_blocks")

    def __init__(
        self, twins: TwinThreads, key: Hashable, start: int, size: int, read: Read,
        blocks: Sequence[tuple[int, int, bytes]] = (),
    ) -> None:  # fmt: skip
        self._twins, self._key, self._start, self._size, self._read = twins, key, start, size, read
        self._blocks = blocks

    def shared(self) -> tuple[list[VariableInfo], Reads, dict[int, object]] | None:
        """The variables made for a thread parked alike, with this thread's reads for them."""
        made = self._twins._made.get(self._key)
        if made is None:
            return None
        delta = self._start - made.start
        reads = _translated(made, delta, self._read, self._blocks)
        if reads is None:
            return None
        infos = made.infos
        if made.moving:
            infos = list(infos)
            for index in made.moving:
                infos[index] = _moved(infos[index], made, delta)
        return infos, reads, made.referred

    def offer(
        self, reads: Reads, covered: Sequence[tuple[int, int, bytes]], unwinding: object,
        infos: list[VariableInfo], referred: dict[int, object],
    ) -> None:  # fmt: skip
        """This thread's variables, made from `reads` on `unwinding` (which read `covered`):
        for the threads parked alike."""
        key, made = self._key, self._twins._made
        if key in made:
            return
        used = _used(reads, covered, unwinding)
        start, end = self._start, self._start + self._size
        if used is None or any(start <= at < end < at + size for at, size, _ in used):
            made[key] = None
            return
        if not all(_shareable(info, start, end) for info in infos):
            made[key] = None
            return
        moving = [index for index, info in enumerate(infos)
                  if _inside(info, start, end) or (info.entry is not None and _inside(info.entry, start, end))]  # fmt: skip
        made[key] = _Made(start, self._size, used, list(infos), referred, moving)


def _used(
    reads: Reads, covered: Sequence[tuple[int, int, bytes]], unwinding: object
) -> Reads | None:
    """What was looked at: the reads made for the variables but the unwinding's blocks, and
    the words the unwinding asked for in them (a block's other bytes, stale locals of the
    thread, need not be alike). None where the unwinding does not tell."""
    asked: list[tuple[int, int]] | None = getattr(unwinding, "used", None)
    if asked is None or (asked and asked[-1][0] < 0):  # (more than it keeps: a deep unwinding)
        return None
    blocks = set(covered)
    out: Reads = [read for read in dict.fromkeys(reads) if read not in blocks]
    for address, size in dict.fromkeys(asked):
        for at, length, data in covered:
            if at <= address and address + size <= at + length:
                out.append((address, size, data[address - at : address - at + size]))
                break
        else:
            return None  # unreadable (an error ends the unwinding): not compared
    return out


def _shareable(info: VariableInfo, start: int, end: int) -> bool:
    """Whether the description names nothing in the stack area [start, end) (a number in
    its text, whole or its low 32 bits) and has no children read from there."""
    if info.aggregate or info.printer is not None or info.variant is not None:
        return False
    for token in _NUMBER.findall(info.value):
        number = int(token, 0) if token.startswith("0x") else int(token)
        if start <= number < end or (
            number <= _MASK32 and (number - start) & _MASK32 < end - start
        ):
            return False
    return info.entry is None or _shareable(info.entry, start, end)


def _inside(info: VariableInfo, start: int, end: int) -> bool:
    return info.address is not None and start <= info.address < end


def _moved(info: VariableInfo, made: _Made, delta: int) -> VariableInfo:
    """`info` with an address in the first thread's stack area at its place in this one's
    (one copy of it: 1,000 threads' 3 arguments each in a futex wait)."""
    start, end = made.start, made.start + made.size
    changes: dict[str, object] = {}
    address, entry = info.address, info.entry
    if address is not None and start <= address < end:
        changes["address"] = address + delta
    if entry is not None and entry.address is not None and start <= entry.address < end:
        changes["entry"] = restamped(entry, address=entry.address + delta)
    return restamped(info, **changes) if changes else info


def _translated(
    made: _Made, delta: int, read: Read, blocks: Sequence[tuple[int, int, bytes]] = ()
) -> Reads | None:
    """This thread's bytes for each of the first thread's reads (moved by `delta` in the
    stack area), None where one differs but for stack addresses moved alike. A read outside
    the stack area is of the same memory at the same stop (nothing written since: `_twin`):
    the same bytes, not read again; nor is a span inside one of `blocks` (read at this stop
    by the thread's unwinding: a parked thread's frame-0 block holds its whole span)."""
    start, end = made.start, made.start + made.size
    spans, outside = made.spans, made.outside
    if spans is None or outside is None:
        spans = made.spans = _spans(made.reads, start, end)
        outside = made.outside = [read for read in made.reads if not start <= read[0] < end]
    out: Reads = outside.copy()
    try:
        for offset, length, items in spans:
            first = start + delta + offset
            for at_block, size_block, data_block in blocks:
                if at_block <= first and first + length <= at_block + size_block:
                    now = data_block[first - at_block : first - at_block + length]
                    break
            else:
                now = read(first, length)
            for at, size, data, theirs in items:
                mine = now[at : at + size]
                if mine != data and not _moved_alike(theirs, data, mine, start, end, delta):
                    return None
                out.append((first + at, size, mine))
    except TargetError:
        return None
    return out


def _spans(reads: Reads, start: int, end: int) -> list[_Span]:
    """The reads in the stack area [start, end), those this close together in one span."""
    inside = sorted(
        (address, size, data) for address, size, data in reads if start <= address < end
    )
    spans: list[_Span] = []
    index = 0
    while index < len(inside):
        first = inside[index][0]
        last, top = index, first + inside[index][1]
        while last + 1 < len(inside) and inside[last + 1][0] + inside[last + 1][1] - first <= _SPAN:
            last += 1
            top = max(top, inside[last][0] + inside[last][1])
        items = [
            (address - first, size, data, address)
            for address, size, data in inside[index : last + 1]
        ]
        spans.append((first - start, top - first, items))
        index = last + 1
    return spans


def _moved_alike(address: int, data: bytes, mine: bytes, start: int, end: int, delta: int) -> bool:
    """Whether each 8-byte word (at an 8-aligned address) that differs holds a stack
    address of the first thread's area in `data` and the same one moved by `delta` in
    `mine`, the rest equal."""
    if len(data) != len(mine):
        return False
    skip = -address % 8
    words = max(len(data) - skip, 0) // 8
    tail = skip + 8 * words
    if data[:skip] != mine[:skip] or data[tail:] != mine[tail:]:
        return False
    if not words:
        return True
    shape = f"<{words}Q"
    for theirs, ours in zip(
        unpack_from(shape, data, skip), unpack_from(shape, mine, skip), strict=True
    ):
        if theirs != ours and (not start <= theirs < end or ours != theirs + delta):
            return False
    return True
