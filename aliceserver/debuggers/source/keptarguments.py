"""A parked thread's frame-0 variables kept across stops while nothing they were made from
changed (1,000 threads blocked in a futex wait, listed by MI's -thread-info at each stop).

Their text follows from the thread's registers, the memory read while making them, the
debug info and the print settings. So they are taken again where the thread's unwinding
was itself kept (keptframes.py: the same registers, stack bytes and module lists), the
settings are the same and every read made for them gives the same bytes once more; each
child reference is made anew, as the store's references name one stop's values. Not kept
where something else was read (float registers), a pretty printer may have run (it reads
memory through its own calls) or the registers are read on demand (over a stub, only those
the unwinding read are compared). 1,000 threads in libc's futex wait, 6 arguments each
with their entry values: made anew at a later stop, 110 us a thread; kept, 10 us (their
reads compared in one or two reads of the stack, as near each other).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

from aliceserver.debuggers.model import VariableInfo
from aliceserver.debuggers.restamp import restamped
from aliceserver.debuggers.source.sharedvalues import Recorded
from aliceserver.debuggers.source.twinthreads import Twin
from aliceserver.errors import TargetError

Read = Callable[[int, int], bytes]
Reads = list[tuple[int, int, bytes]]
Referred = Callable[[int], object]  # a reference -> what the store keeps for it (KeyError: none)
Refer = Callable[[object], int]  # a new reference to what a kept one named


@dataclass(slots=True)
class _Recording:
    reads: Reads = field(default_factory=list)
    other: bool = False  # read something not recorded here (float registers)


class RecordingReader:
    """The memory read of the frames' views, recording while variables are made."""

    def __init__(self, read: Read) -> None:
        self._read = read
        self._recording: _Recording | None = None
        # While frame 0's variables are made: the blocks its unwinding read at this stop, no
        # write since (a stack argument's bytes are in them: one read fewer for each)
        self._blocks: Sequence[tuple[int, int, bytes]] = ()

    def __call__(self, address: int, size: int) -> bytes:
        data = _within(self._blocks, address, size) if self._blocks else None
        if data is None:
            data = self._read(address, size)
        if self._recording is not None:
            self._recording.reads.append((address, size, data))
        return data

    def read_unrecorded(self, address: int, size: int) -> bytes:
        return self._read(address, size)

    def recorded(self, make: Callable[[], VariableInfo]) -> tuple[VariableInfo, Recorded | None]:
        """`make()`, with what it read where reads are recorded (sharedvalues.py)."""
        recording = self._recording
        if recording is None:
            return make(), None
        count, other = len(recording.reads), recording.other
        recording.other = False
        try:
            made = make()
        finally:
            read_other, recording.other = recording.other, other or recording.other
        return made, (recording.reads[count:], read_other)

    def replay(self, recorded: Recorded) -> None:
        """A shared description's reads, as this thread's."""
        recording = self._recording
        if recording is not None:
            recording.reads += recorded[0]
            recording.other |= recorded[1]

    def recording(self) -> bool:
        return self._recording is not None

    def read_other(self) -> None:
        """Something the recording cannot compare later was read."""
        if self._recording is not None:
            self._recording.other = True


@dataclass(slots=True)
class _Kept:
    made_on: object  # the thread's unwinding they were made on
    how: Hashable  # the request and settings they were made with
    reads: Reads
    infos: list[VariableInfo]  # with the references of the stop they were made at
    referred: dict[int, object]  # what those references named


class KeptVariables:
    """Each thread's frame-0 variables of the last stop they were made at (one stop more)."""

    def __init__(self, reader: RecordingReader) -> None:
        self._reader = reader
        self._now: dict[tuple[int, Hashable], _Kept] = {}
        self._before: dict[tuple[int, Hashable], _Kept] = {}

    def next_stop(self) -> None:
        self._before, self._now = self._now, {}

    def variables(
        self, thread_id: int, scope: Hashable, made_on: object | None, how: Hashable,
        make: Callable[[], list[VariableInfo]], referred: Referred, refer: Refer,
        covered: Sequence[tuple[int, int, bytes]] = (), verified: bool = False, twin: Twin | None = None,
    ) -> list[VariableInfo]:  # fmt: skip
        """`make()`'s, or the last stop's where made on the same unwinding (`made_on`, None:
        none to keep) with the same `how` and the same bytes at each read made for them.
        `covered`: that unwinding's reads, `verified` where compared at this stop with no
        write since (`set var`): a read inside one of them (a stack slot of frame 0 or its
        caller) is then not compared again; else they are compared with the others.
        `twin`: the thread among those parked alike at this stop (twinthreads.py), where
        `covered` holds every read of the unwinding."""
        key = (thread_id, scope)
        kept = self._before.pop(key, None) or self._now.get(key)
        if made_on is not None and kept is not None and kept.made_on is made_on and kept.how == how:
            reads = kept.reads if verified else [*kept.reads, *covered]
            if _unchanged(self._reader.read_unrecorded, reads):
                self._now[key] = kept
                return _renewed(kept.infos, kept.referred, refer)
        outside = self._reader._recording is None  # no caller records what is read for them
        shared = twin.shared() if twin is not None and made_on is not None and outside else None
        if shared is not None:  # made for a thread parked alike: kept as this one's
            infos, reads, targets = shared
            self._now[key] = _Kept(made_on, how, _uncovered(reads, covered), infos, targets)
            return list(infos)
        reader = self._reader
        outer, reader._recording = reader._recording, _Recording()
        blocks, reader._blocks = reader._blocks, covered if verified else ()
        try:
            infos = make()
            recording = reader._recording
        finally:
            reader._recording, reader._blocks = outer, blocks
        if outer is not None:  # a caller's recording covers what this one read too
            outer.reads += recording.reads
            outer.other |= recording.other
        if made_on is not None and not recording.other and all(_renewable(info) for info in infos):
            try:
                targets = {ref: referred(ref) for info in infos for ref in _references(info)}
            except KeyError:
                return infos
            self._now[key] = _Kept(made_on, how, _uncovered(recording.reads, covered), list(infos), targets)
            if twin is not None and outer is None:
                twin.offer(recording.reads, covered, made_on, infos, targets)
        return infos


def _within(blocks: Sequence[tuple[int, int, bytes]], address: int, size: int) -> bytes | None:
    """The bytes at `address` where one of `blocks` holds them all."""
    for start, length, data in blocks:
        if start <= address and address + size <= start + length:
            return data[address - start : address - start + size]
    return None


_WINDOW = 512  # reads this close together, in one page, are compared in one read


def _unchanged(read: Read, reads: Sequence[tuple[int, int, bytes]]) -> bool:
    """Whether each read gives the same bytes now: reads near each other in the same page
    (a frame's stack slots, the block its caller's unwinding read) in one read of them all."""
    try:
        for start, end, group in _windows(reads):
            now = read(start, end - start)
            if any(now[address - start : address - start + size] != data for address, size, data in group):
                return False
        return True
    except TargetError:
        return False


def _windows(reads: Sequence[tuple[int, int, bytes]]) -> list[tuple[int, int, Reads]]:
    """The reads grouped by address into (start, end, reads) within _WINDOW and one page."""
    windows: list[tuple[int, int, Reads]] = []
    for read in sorted(reads):
        address, size, _ = read
        if windows:
            start, end, group = windows[-1]
            last = max(end, address + size)
            if last - start <= _WINDOW and start >> 12 == (last - 1) >> 12:
                windows[-1] = (start, last, [*group, read])
                continue
        windows.append((address, address + size, [read]))
    return windows


def _renewable(info: VariableInfo) -> bool:
    """Whether a new reference is all the description needs (no printer's, no variant's)."""
    if info.printer is not None or info.variant is not None:
        return False
    return info.entry is None or _renewable(info.entry)


def _uncovered(reads: Reads, covered: Sequence[tuple[int, int, bytes]]) -> Reads:
    """`reads` but those inside one of `covered` or made twice."""
    out: Reads = []
    for read in dict.fromkeys(reads):
        address, end = read[0], read[0] + read[1]
        for at, size, _ in covered:  # (a loop, not any(): 10 reads a thread of 1,000)
            if at <= address and end <= at + size:
                break
        else:
            out.append(read)
    return out


def _references(info: VariableInfo) -> list[int]:
    entry = info.entry
    return [ref for ref in (info.reference, 0 if entry is None else entry.reference) if ref]


def _renewed(infos: list[VariableInfo], referred: dict[int, object], refer: Refer) -> list[VariableInfo]:
    """The descriptions with new child references, naming what the kept ones named."""
    if not referred:
        return list(infos)
    out = []
    for info in infos:
        entry = info.entry
        if entry is not None and entry.reference:
            info = restamped(info, entry=restamped(entry, reference=refer(referred[entry.reference])))
        if info.reference:
            info = restamped(info, reference=refer(referred[info.reference]))
        out.append(info)
    return out
