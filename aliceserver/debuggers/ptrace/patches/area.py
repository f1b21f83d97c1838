"""A patch area: memory in the program for trampolines (code) and their counters (data).

The code region is private anonymous memory mapped read+execute within a `jmp rel32` of
every address of the module it serves; the engine writes it through /proc/PID/mem, which
writes read-only pages too. The data region, right after the code (so trampolines reach
it RIP-relative), is a memfd the program maps shared read+write and the server maps as
well (shared_memory.py): the server reads hit counters and ring buffers while the program
runs, with no ptrace call. Both are made by system calls run in the program (inject.py),
with every thread stopped.

Placement: the highest page of a free gap that keeps the whole module in reach, gaps
below the module first. The top of a gap, never its bottom: the heap grows up from the
bottom of its gap, and the gap just under the stack is left alone for the stack to grow.
"""

from __future__ import annotations

import logging
import mmap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from aliceserver.debuggers.ptrace.patches.inject import (
    SYS_CLOSE,
    SYS_MMAP,
    SYS_MUNMAP,
    SyscallInjector,
    all_stopped,
)
from aliceserver.debuggers.ptrace.patches.shared_memory import shared_memory
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.core.writer import MemoryMapping
    from aliceserver.debuggers.ptrace.inferior import Inferior

log = logging.getLogger(__name__)

PAGE: Final = 4096
DEFAULT_CODE_SIZE: Final = 64 * 1024
DEFAULT_DATA_SIZE: Final = 64 * 1024
# What a rel32 spans, less a margin for the instruction's own length.
REACH: Final = (1 << 31) - 64
_PROT_READ, _PROT_WRITE, _PROT_EXEC = 1, 2, 4
_MAP_SHARED, _MAP_PRIVATE, _MAP_ANONYMOUS, _MAP_FIXED_NOREPLACE = 0x1, 0x2, 0x20, 0x100000
_STACK_ROOM: Final = 256 << 20  # left free under the stack for it to grow
_USER_TOP_47: Final = (1 << 47) - PAGE
_USER_TOP_56: Final = (1 << 56) - PAGE
_MAX_TRIES: Final = 8


@dataclass
class Room:
    """Allocation within a region of `size` bytes: fresh room first, then freed blocks
    (first fit). Offsets from the region's start."""

    size: int
    used: int = 0
    freed: list[tuple[int, int]] = field(default_factory=list)  # (offset, size)

    def take(self, size: int, align: int) -> int | None:
        for index, (offset, length) in enumerate(self.freed):
            start = -(-offset // align) * align
            if start + size <= offset + length:
                del self.freed[index]
                self.freed += [(o, n) for o, n in ((offset, start - offset),
                               (start + size, offset + length - start - size)) if n > 0]  # fmt: skip
                return start
        start = -(-self.used // align) * align
        if start + size > self.size:
            return None
        self.used = start + size
        return start

    def give_back(self, offset: int, size: int) -> None:
        self.freed.append((offset, size))


@dataclass
class PatchArea:
    """One module's trampolines and counters. `data` is the server's view of the data
    region (data_address in the program): bytes written there are what the program reads."""

    inferior: Inferior
    code_address: int
    code_size: int
    data_address: int
    data_size: int
    data: mmap.mmap
    code_room: Room = field(init=False)
    data_room: Room = field(init=False)
    mapped: bool = field(default=True)

    def __post_init__(self) -> None:
        self.code_room, self.data_room = Room(self.code_size), Room(self.data_size)

    def alloc_code(self, size: int, align: int = 16) -> int:
        """The program address of `size` bytes of the code region no one else has."""
        offset = self.code_room.take(size, align)
        if offset is None:
            raise TargetError(
                f"the patch area at {self.code_address:#x} has no room for {size} more bytes of code"
            )
        return self.code_address + offset

    def free_code(self, address: int, size: int) -> None:
        """Give back code no thread runs any more (every thread stopped, none inside it,
        no patch jumping to it); it becomes int3 so that a stale jump stops loudly."""
        self.inferior.memory.write(address, b"\xcc" * size)
        self.code_room.give_back(address - self.code_address, size)

    def place_code(self, code: bytes, align: int = 16) -> int:
        """`code` written into room of the code region; its program address."""
        address = self.alloc_code(len(code), align)
        self.inferior.memory.write(address, code)
        return address

    def alloc_data(self, size: int, align: int = 8) -> int:
        """The offset (in `data`, and from data_address) of `size` zeroed bytes."""
        offset = self.data_room.take(size, align)
        if offset is None:
            raise TargetError(
                f"the patch area at {self.code_address:#x} has no room for {size} more bytes of data"
            )
        return offset

    def free_data(self, offset: int, size: int) -> None:
        """Give back data no code reads any more; zeroed for its next owner."""
        self.data[offset : offset + size] = bytes(size)
        self.data_room.give_back(offset, size)

    def holds_code(self, address: int) -> bool:
        return self.code_address <= address < self.code_address + self.code_size

    def reaches(self, low: int, high: int) -> bool:
        """Whether a rel32 jump or RIP-relative access between [low, high) and any byte of
        the area (code and data) stays in range."""
        return max(high, self.data_address + self.data_size) - min(low, self.code_address) <= REACH

    def unmap(self) -> None:
        """Take the area out of the program (every thread stopped, none inside the code;
        the patches jumping here removed first) and close the server's view."""
        if not self.mapped:
            return
        inferior = self.inferior
        if not all_stopped(inferior):
            raise TargetError("every thread must be stopped to remove a patch area")
        for t in inferior.threads.values():
            if not t.gone and not t.new and self.holds_code(int(inferior.regs(t).rip)):
                raise TargetError(
                    f"thread {t.tid} is running code of the patch area at {int(t.regs.rip):#x}"
                )
        with SyscallInjector(inferior) as inject:
            inject.call(SYS_MUNMAP, self.code_address, self.code_size + self.data_size)
        self.discard()

    def discard(self) -> None:
        """Forget the area without touching the program (it exec'd or exited)."""
        self.mapped = False
        if not self.data.closed:
            self.data.close()


def module_extent(mappings: list[MemoryMapping], address: int) -> tuple[int, int]:
    """[low, high) of every mapping of the file mapped at `address` (the mapping alone
    when it is anonymous or special)."""
    for m in mappings:
        if m.start <= address < m.end:
            if not m.path.startswith("/"):
                return m.start, m.end
            same = [n for n in mappings if n.path == m.path]
            return min(n.start for n in same), max(n.end for n in same)
    raise TargetError(f"no mapping holds {address:#x}")


def free_gaps(mappings: list[MemoryMapping], lowest: int) -> list[tuple[int, int]]:
    """The free [start, end) ranges of the address space, less the room the stack grows into."""
    ordered = sorted((m for m in mappings if m.start < 1 << 63), key=lambda m: m.start)
    top = _USER_TOP_56 if any(m.end > _USER_TOP_47 + PAGE for m in ordered) else _USER_TOP_47
    ordered = [m for m in ordered if m.end <= top + PAGE]
    gaps: list[tuple[int, int]] = []
    previous_end = lowest
    from aliceserver.debuggers.core.writer import MemoryMapping  # the core writer's, on use

    for m in [*ordered, MemoryMapping(top, top + PAGE, "---p", 0, 0, "")]:
        end = m.start - _STACK_ROOM if m.path == "[stack]" else m.start
        if end > previous_end:
            gaps.append((previous_end, end))
        previous_end = max(previous_end, m.end)
    return gaps


def placements(
    mappings: list[MemoryMapping], low: int, high: int, size: int, lowest: int
) -> list[int]:
    """Where an area of `size` bytes may go for [low, high): below the module first,
    nearest first; in each gap its highest page in reach."""
    below: list[int] = []
    above: list[int] = []
    for start, end in free_gaps(mappings, lowest):
        first = max(start, high - REACH)
        last = min(end - size, low + REACH - size)
        last -= last % PAGE
        if last < first or last < start:
            continue
        (below if last + size <= low else above).append(last)
    return sorted(below, reverse=True) + sorted(above, key=lambda a: abs(a - high))


def _lowest_address() -> int:
    try:
        with open("/proc/sys/vm/mmap_min_addr", encoding="ascii") as f:
            return max(int(f.read()), 1 << 20)
    except (OSError, ValueError):
        return 1 << 20


def map_patch_area(inferior: Inferior, near: int, *, code_size: int = DEFAULT_CODE_SIZE,
                   data_size: int = DEFAULT_DATA_SIZE) -> PatchArea:  # fmt: skip
    """Map a patch area serving the module mapped at `near` (every thread stopped)."""
    code_size = -(-code_size // PAGE) * PAGE
    data_size = -(-data_size // PAGE) * PAGE
    from aliceserver.debuggers.core.procfs import parse_maps  # with the core writer, on use

    with open(f"/proc/{inferior.pid}/maps", encoding="utf-8", errors="surrogateescape") as f:
        mappings = parse_maps(f.read())
    low, high = module_extent(mappings, near)
    candidates = placements(mappings, low, high, code_size + data_size, _lowest_address())
    if not candidates:
        raise TargetError(f"no free memory within 2 GiB of {low:#x}-{high:#x} for a patch area")
    with SyscallInjector(inferior) as inject:
        for address in candidates[:_MAX_TRIES]:
            try:
                return _map_at(inferior, inject, address, code_size, data_size)
            except _Taken:
                continue
    raise TargetError(f"no free memory within 2 GiB of {low:#x}-{high:#x} for a patch area")


class _Taken(Exception):
    """The place was not free after all (or the kernel put the mapping elsewhere)."""


def _mmap_fixed(
    inject: SyscallInjector, address: int, size: int, prot: int, flags: int, fd: int = -1
) -> None:
    try:
        got = inject.call(
            SYS_MMAP, address, size, prot, flags | _MAP_FIXED_NOREPLACE, fd & 0xFFFFFFFF, 0
        )
    except OSError as error:
        if error.errno == 17:  # EEXIST
            raise _Taken from None
        raise TargetError(f"mmap in the program failed: {error.strerror}") from None
    if got != address:  # before Linux 4.17 the flag is a mere hint
        inject.call(SYS_MUNMAP, got, size)
        raise _Taken


def _map_at(
    inferior: Inferior, inject: SyscallInjector, address: int, code_size: int, data_size: int
) -> PatchArea:
    _mmap_fixed(inject, address, code_size, _PROT_READ | _PROT_EXEC, _MAP_PRIVATE | _MAP_ANONYMOUS)
    data_address = address + code_size
    try:
        fd, view = shared_memory(inferior, inject, address, data_size)
        try:
            _mmap_fixed(inject, data_address, data_size, _PROT_READ | _PROT_WRITE, _MAP_SHARED, fd)
        except BaseException:
            view.close()
            raise
        finally:
            inject.call(SYS_CLOSE, fd)
    except BaseException:
        inject.call(SYS_MUNMAP, address, code_size)
        raise
    log.debug("patch area of process %d at %#x", inferior.pid, address)
    return PatchArea(inferior, address, code_size, data_address, data_size, view)
