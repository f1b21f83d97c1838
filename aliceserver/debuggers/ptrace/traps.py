"""Software traps: one physical int3 per address, shared by several logical breakpoints.

Pure bookkeeping (no ptrace): the engine decides when bytes are written.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Callable

from aliceserver.debuggers.base import BreakpointCondition
from aliceserver.debuggers.events import StopReason
from aliceserver.debuggers.model import BreakpointInfo
from aliceserver.debuggers.ptrace.emulate import Plan
from aliceserver.errors import TargetError

INT3 = b"\xcc"


@dataclass(slots=True)
class LogicalBreakpoint:
    id: int
    address: int
    enabled: bool = True
    temporary: bool = False
    condition: BreakpointCondition | None = None
    hit_count: int = 0
    internal: bool = False  # the engine's own (shared-library events, entry): never reported
    on_hit: Callable[[int], None] | None = None  # internal action, run on the tracer thread
    reports: StopReason | None = None  # an internal trap that stops with this reason
    note: str = ""  # the description of that stop
    # A watch's scope guard: the watchpoint whose frame returns here (see watchscope.py).
    guards_watch: int | None = None

    def info(self, inserted: bool) -> BreakpointInfo:
        return BreakpointInfo(
            id=self.id,
            address=self.address,
            enabled=self.enabled,
            temporary=self.temporary,
            hit_count=self.hit_count,
            inserted=inserted,
        )


@dataclass(slots=True)
class PhysicalTrap:
    address: int
    original: bytes  # the byte the int3 replaced
    logical: list[LogicalBreakpoint] = field(default_factory=list)
    inserted: bool = False
    emulation: Plan | None = None  # how to move past it without a step, or None: single-step

    @property
    def wanted(self) -> bool:
        return any(bp.enabled for bp in self.logical)


class TrapTable:
    """Maps addresses to physical traps and ids to logical breakpoints."""

    def __init__(self) -> None:
        self._next_id = 1
        self._next_internal_id = -1  # the engine's own traps count down, as in gdb
        self.by_address: dict[int, PhysicalTrap] = {}
        self.by_id: dict[int, LogicalBreakpoint] = {}

    def new_id(self) -> int:
        ident = self._next_id
        self._next_id += 1
        return ident

    def new_internal_id(self) -> int:
        ident = self._next_internal_id
        self._next_internal_id -= 1
        return ident

    def add(self, bp: LogicalBreakpoint, original: bytes) -> PhysicalTrap:
        trap = self.by_address.get(bp.address)
        if trap is None:
            trap = PhysicalTrap(bp.address, original)
            self.by_address[bp.address] = trap
        trap.logical.append(bp)
        self.by_id[bp.id] = bp
        return trap

    def get(self, ident: int) -> LogicalBreakpoint:
        try:
            return self.by_id[ident]
        except KeyError:
            raise TargetError(f"no breakpoint number {ident}") from None

    def remove(self, ident: int) -> PhysicalTrap:
        """Forget a logical breakpoint; the caller removes the trap if nothing is left."""
        bp = self.get(ident)
        del self.by_id[ident]
        trap = self.by_address[bp.address]
        trap.logical.remove(bp)
        return trap

    def drop_trap(self, address: int) -> None:
        self.by_address.pop(address, None)

    def user_breakpoints(self) -> list[LogicalBreakpoint]:
        return [bp for bp in self.by_id.values() if not bp.internal]

    def mask(self, address: int, data: bytes) -> bytes:
        """Replace inserted int3 bytes in `data` (read at `address`) by the original bytes."""
        end = address + len(data)
        patched: bytearray | None = None
        # Look up the read's bytes or scan the traps, whichever are fewer: with 10,000
        # breakpoints a scan of all at every read (each insertion reads) was quadratic.
        if len(data) < len(self.by_address):
            found = ((at, self.by_address.get(at)) for at in range(address, end))
            traps = [(at, trap) for at, trap in found if trap is not None]
        else:
            traps = [(at, trap) for at, trap in self.by_address.items() if address <= at < end]
        for trap_address, trap in traps:
            if trap.inserted:
                if patched is None:
                    patched = bytearray(data)
                patched[trap_address - address] = trap.original[0]
        return bytes(patched) if patched is not None else data


_log = logging.getLogger(__name__)


@dataclass
class TrapVerdict:
    """What a thread's hit of a trap comes to, for either backend to act on."""

    stop_ids: list[int] = field(default_factory=list)  # the user's breakpoints that stop
    internal: StopReason | None = None  # an engine breakpoint's reason to stop
    note: str = ""
    finished: list[int] = field(default_factory=list)  # temporary ones to remove
    left: list[int] = field(default_factory=list)  # watches whose frame returned here


def judge_trap_hit(trap: PhysicalTrap, tid: int, *, user_only: bool = False,
                   guards_only: bool = False) -> TrapVerdict:  # fmt: skip
    """Each logical breakpoint of `trap` hit by `tid`: conditions judged, hits counted,
    internal actions run (ptrace and remote alike). `user_only`: the user's breakpoints
    and the watch scope guards (a step landed here); `guards_only`: the guards alone."""
    verdict = TrapVerdict()
    for bp in list(trap.logical):
        guard = bp.guards_watch is not None
        if not bp.enabled or (user_only and bp.internal and not guard) or (guards_only and not guard):
            continue
        if bp.internal:
            if bp.condition is not None and not bp.condition(tid):
                continue
            bp.hit_count += 1
            if bp.on_hit is not None:
                bp.on_hit(tid)
            if bp.guards_watch is not None:
                verdict.left.append(bp.guards_watch)
            elif bp.reports is not None:
                verdict.internal, verdict.note = bp.reports, bp.note
            if bp.temporary:
                verdict.finished.append(bp.id)
            continue
        bp.hit_count += 1
        if bp.condition is not None:
            try:
                if not bp.condition(tid):
                    continue
            except Exception:  # a broken condition stops, as in gdb, and says why
                _log.exception("breakpoint %d condition failed", bp.id)
        verdict.stop_ids.append(bp.id)
        if bp.temporary:
            verdict.finished.append(bp.id)
    return verdict

