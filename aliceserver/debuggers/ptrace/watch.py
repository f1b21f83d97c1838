"""Hardware watchpoints: four debug-register slots, the same in every thread, but for a
watch on a frame's locals, which only the thread of that frame has (see watchscope.py)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable

from aliceserver.debuggers.events import Stopped
from aliceserver.debuggers.model import WatchKind, WatchpointInfo, WatchScope
from aliceserver.debuggers.ptrace import binding, debugregs
from aliceserver.errors import TargetError

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Watch:
    id: int
    address: int
    size: int
    kind: WatchKind
    value: bytes
    enabled: bool = True
    hit_count: int = 0
    scope: WatchScope | None = None  # the frame it dies with (a watch on locals)
    thread: int | None = None  # the thread whose debug registers hold it; None: every thread
    return_address: int | None = None  # where the frame returns to (None: it is outermost)
    guard_id: int | None = None  # the internal trap there (see watchscope.py)
    more: tuple[tuple[int, int], ...] = ()  # further places it reads (`a + b`), (address, size)
    software: bool = False  # in no debug register: checked after each single step

    @property
    def regions(self) -> tuple[tuple[int, int], ...]:
        return ((self.address, self.size), *self.more)

    def read(self, read: Callable[[int, int], bytes]) -> bytes:
        """Its bytes now, every place's in order (what `value` keeps)."""
        return b"".join(read(address, size) for address, size in self.regions)

    def info(self) -> WatchpointInfo:
        return WatchpointInfo(
            self.id, self.address, self.size, self.kind, self.enabled, self.hit_count, self.value,
            self.scope, self.software,
        )  # fmt: skip

    def watches(self, tid: int) -> bool:
        return self.enabled and (self.thread is None or self.thread == tid)


def _debugreg(index: int) -> int:
    return binding.DEBUGREG_OFFSET + index * 8


class WatchSlots:
    def __init__(self) -> None:
        self.slots: list[Watch | None] = [None] * debugregs.SLOTS
        # Each slot's piece of its watch (address, size): a watch wider than 8 bytes, or
        # unaligned, takes several (debugregs.pieces).
        self.pieces: list[tuple[int, int]] = [(0, 0)] * debugregs.SLOTS
        # Whether any slot was ever set in this image: until then every thread's debug
        # registers are clear (new threads, exec and fork children start so), and the five
        # writes per thread that `apply` makes, each costly in the kernel, are skipped.
        self._ever_set = False
        # The front end's judge of each trap that changed a value (catch_events.WatchGate);
        # False: the program goes on, a step or finish under way with it.
        self.gate: Callable[[Stopped], bool] | None = None
        # gdb's software watchpoints: while one is enabled, a continue single-steps
        # (ptrace/inferior.py's _cont) and each step compares their bytes.
        self.soft: list[Watch] = []

    def active(self) -> bool:
        return any(w is not None and w.enabled for w in self.slots) or self.soft_active()

    def soft_active(self) -> bool:
        return any(w.enabled for w in self.soft)

    def all(self) -> list[Watch]:
        return list({id(w): w for w in self.slots if w is not None}.values()) + self.soft

    def move_thread(self, old: int, new: int) -> None:
        """A fork child followed: the forking thread's frames go on in the child's thread."""
        for watch in self.all():
            if watch.thread == old:
                watch.thread = new

    def add(self, watch: Watch) -> None:
        if watch.software:
            self.soft.append(watch)
            return
        wanted = debugregs.pieces_of(watch.regions)
        free = [index for index, slot in enumerate(self.slots) if slot is None]
        if len(wanted) > len(free):
            raise TargetError(
                f"all {debugregs.SLOTS} hardware watchpoint slots are in use; remove one first"
                if not free or len(wanted) == 1
                else f"it needs {len(wanted)} of the {debugregs.SLOTS} debug registers, "
                f"{len(free)} {'is' if len(free) == 1 else 'are'} free; remove a watchpoint first"
            )
        for index, piece in zip(free, wanted, strict=False):  # (more free slots than pieces)
            self.slots[index], self.pieces[index] = watch, piece
        self._ever_set = True

    def remove(self, ident: int) -> Watch:
        soft = next((w for w in self.soft if w.id == ident), None)
        if soft is not None:
            self.soft.remove(soft)
            return soft
        found = [index for index, slot in enumerate(self.slots) if slot is not None and slot.id == ident]
        if not found:
            raise TargetError(f"no watchpoint number {ident}")
        watch = self.slots[found[0]]
        assert watch is not None
        for index in found:
            self.slots[index] = None
        return watch

    def forget_all(self) -> None:
        """exec clears the debug registers, and the addresses mean nothing in the new image."""
        self.slots = [None] * debugregs.SLOTS
        self.soft = []
        self._ever_set = False

    def apply(self, libc: binding.Libc, tid: int) -> None:
        """Write the slots into one stopped thread's debug registers."""
        if not self._ever_set:
            return
        shape: list[tuple[int, int, WatchKind] | None] = []
        for index, slot in enumerate(self.slots):
            live = slot if slot is not None and slot.watches(tid) else None
            address, size = self.pieces[index]
            shape.append((address, size, live.kind) if live else None)
            libc.poke_user(tid, _debugreg(index), address if live else 0)
        libc.poke_user(tid, _debugreg(7), debugregs.dr7_value(shape))

    def clear_thread(self, libc: binding.Libc, tid: int) -> None:
        if any(self.slots):
            libc.poke_user(tid, _debugreg(7), 0)

    def take_fired(self, libc: binding.Libc, tid: int) -> list[Watch]:
        """The watches whose slots fired in this thread (DR6), clearing DR6; then the
        software ones it watches, each to compare."""
        fired: list[Watch] = []
        if any(self.slots):
            dr6 = libc.peek_user(tid, _debugreg(6))
            if dr6 & 0xF:
                libc.poke_user(tid, _debugreg(6), 0)
            fired = [w for i in debugregs.fired_slots(dr6) if (w := self.slots[i]) is not None]
        soft = [w for w in self.soft if w.watches(tid)]
        return list({id(w): w for w in fired}.values()) + soft  # a watch of several pieces once
