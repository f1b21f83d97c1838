"""A thread's unwinding kept across stops while its registers and the stack bytes it read
are unchanged (threads parked in a futex wait between two stops).

At each stop 1,000 blocked threads were unwound anew, their frames the same as at the
last stop: the unwinding reads only the thread's registers and memory (through the read
it is given), and a module mapped, moved or dropped changes the lookups it was made with.
So an unwinding is taken again when the registers are equal, the lookups the same object
(Frames renews them with the module lists) and every read it made gives the same bytes
once more: one pread per block it read, where unwinding again costs a CFI step per frame.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from aliceserver.debuggers.symbols.dwarf.readregisters import ReadRegisters
from aliceserver.debuggers.symbols.dwarf.unwind import StackUnwinder, UnwindLookups
from aliceserver.errors import TargetError

Read = Callable[[int, int], bytes]


@dataclass(slots=True)
class RecordedReads:
    """The reads made through `read`, with the bytes each gave."""

    read_memory: Read
    reads: list[tuple[int, int, bytes]] = field(default_factory=list)

    def read(self, address: int, size: int) -> bytes:
        data = self.read_memory(address, size)
        self.reads.append((address, size, data))
        return data

    def unchanged(self) -> bool:
        """Whether each read gives the same bytes now (an unreadable one: changed). Reads
        side by side (a frame's stack block and its caller's) are compared in one read."""
        try:
            return all(self.read_memory(address, len(data)) == data for address, data in _spans(self.reads))
        except TargetError:
            return False


def _spans(reads: list[tuple[int, int, bytes]]) -> list[tuple[int, bytes]]:
    """The bytes read, joined where one read ends where the next begins."""
    spans: list[tuple[int, bytes]] = []
    for address, _, data in sorted(reads, key=lambda read: read[0]):
        if spans and spans[-1][0] + len(spans[-1][1]) == address:
            spans[-1] = (spans[-1][0], spans[-1][1] + data)
        else:
            spans.append((address, data))
    return spans


@dataclass(slots=True)
class KeptUnwinding:
    registers: Mapping[str, int]  # a copy, or those read on demand (ReadRegisters)
    lookups: UnwindLookups
    reads: RecordedReads
    unwinder: StackUnwinder


class KeptUnwindings:
    """Each thread's unwinding of the last stop it was unwound at (kept one stop more)."""

    def __init__(self) -> None:
        self._now: dict[int, KeptUnwinding] = {}  # made or taken again at this stop
        self._before: dict[int, KeptUnwinding] = {}  # the stop before's

    def next_stop(self) -> None:
        """The program moved: what this stop kept may serve at the next one."""
        self._before, self._now = self._now, {}

    def reads(self, thread_id: int) -> list[tuple[int, int, bytes]]:
        """The reads of the thread's unwinding at this stop, compared when it was kept."""
        kept = self._now.get(thread_id)
        return [] if kept is None else kept.reads.reads

    def forget(self, thread_id: int | None = None) -> None:
        """A thread's registers were written (None: every thread's)."""
        if thread_id is None:
            self._now.clear()
            self._before.clear()
        else:
            self._now.pop(thread_id, None)
            self._before.pop(thread_id, None)

    def unwinder(
        self, thread_id: int, registers: Mapping[str, int], lookups: UnwindLookups, read: Read,
        make: Callable[[Read], StackUnwinder],
    ) -> StackUnwinder:  # fmt: skip
        """The thread's unwinding of an earlier stop where nothing it read has changed, else
        `make(read)`'s, its reads recorded."""
        kept = self._before.pop(thread_id, None)
        values = registers if isinstance(registers, ReadRegisters) else dict(registers)
        if kept is None or kept.lookups is not lookups or not _same(kept.registers, values) or not kept.reads.unchanged():
            reads = RecordedReads(read)
            kept = KeptUnwinding(values, lookups, reads, make(reads.read))
        self._now[thread_id] = kept
        return kept.unwinder


def _same(kept: Mapping[str, int], now: Mapping[str, int]) -> bool:
    """Registers read on demand: those the kept unwinding read (over a stub, most often
    the ones its stop reply carried: no `g`); a copy: all of them."""
    return kept.unchanged(now) if isinstance(kept, ReadRegisters) else kept == now
