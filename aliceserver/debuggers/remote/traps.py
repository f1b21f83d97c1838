"""The engine's logical breakpoints over a stub (ptrace/traps.py's TrapTable: pure
bookkeeping, one numbering with every backend), placed with Z0: the AddressBreakpoints the
source level's location breakpoints bind to (source/services.py), the engine's internal
traps (the dynamic loader's), and a hit judged as ptrace's (conditions, counts, temporary
ones). A trap's `inserted` stays False: the stub hides its own breakpoints from memory
reads, so there is nothing to mask."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Callable

from aliceserver.debuggers.base import BreakpointCondition
from aliceserver.debuggers.events import BreakpointChanged, Stopped, StopReason
from aliceserver.debuggers.eventsource import EventSource
from aliceserver.debuggers.model import BreakpointInfo
from aliceserver.debuggers.ptrace.traps import (
    LogicalBreakpoint,
    PhysicalTrap,
    TrapTable,
    judge_trap_hit,
)
from aliceserver.debuggers.remote.errors import RemoteError
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.remote.process import RemoteProcess

log = logging.getLogger(__name__)


class RemoteTraps:
    def __init__(self, table: TrapTable, events: EventSource, live: Callable[[], RemoteProcess | None]) -> None:
        self.table = table
        self._events = events
        self._live = live  # the process the stub debugs, if any

    def place(self, trap: PhysicalTrap, *, posted: bool = False) -> bool:
        """Z0 in or out as the trap's breakpoints want it; True when it is in. `posted`:
        a step's trap, its Z0 sent with the resume after it (StubBreakpoints.insert)."""
        process = self._live()
        if process is None:
            return False
        placed = trap.address in process.breakpoints.inserted
        if trap.wanted and not placed:
            process.insert_breakpoint(trap.address, posted=posted)
        elif not trap.wanted and placed:
            process.remove_breakpoint(trap.address)
        return trap.wanted

    def add_internal(self, address: int, on_hit: Callable[[int], None]) -> int:
        bp = LogicalBreakpoint(self.table.new_internal_id(), address, internal=True, on_hit=on_hit)
        try:
            self.place(self.table.add(bp, b""))
        except (TargetError, OSError) as error:
            log.warning("internal breakpoint at %#x: %s", address, error)
        return bp.id

    def place_all(self) -> None:
        """Every wanted trap in (a new process)."""
        for trap in list(self.table.by_address.values()):
            try:
                self.place(trap)
            except (TargetError, OSError) as error:
                log.warning("cannot insert a breakpoint at %#x: %s", trap.address, error)

    def insert_address_breakpoint(
        self, address: int, temporary: bool, enabled: bool, condition: BreakpointCondition | None,
        *, at_instruction: bool = False,
    ) -> BreakpointInfo:  # fmt: skip
        bp = LogicalBreakpoint(self.table.new_id(), address, enabled, temporary, condition)
        trap = self.table.add(bp, b"")
        try:
            inserted = self.place(trap)
        except (RemoteError, OSError):
            self.remove_logical(bp.id)
            raise TargetError(
                f"Cannot insert breakpoint {bp.id}. Cannot access memory at address {address:#x}"
            ) from None
        return bp.info(inserted)

    def forget_address_breakpoint(self, ident: int) -> None:
        if ident in self.table.by_id:
            self.remove_logical(ident)

    def code_unmapped(self, address: int) -> None:
        process = self._live()
        if process is not None:
            process.breakpoints.inserted.pop(address, None)

    def remove_logical(self, ident: int) -> None:
        trap = self.table.remove(ident)
        try:
            self.place(trap)
        except (TargetError, OSError) as error:
            log.info("removing the breakpoint at %#x: %s", trap.address, error)
        if not trap.logical:
            self.table.drop_trap(trap.address)

    def enable_breakpoint(self, ident: int, enabled: bool) -> BreakpointInfo:
        bp = self.table.get(ident)
        bp.enabled = enabled
        return bp.info(self.place(self.table.by_address[bp.address]))

    def hit(self, tid: int, trap: PhysicalTrap, *, user_only: bool = False) -> Stopped | None:
        """As ptrace's: conditions judged, hits counted, internal actions run, temporary
        ones removed; the Stopped to report, None to go on. `user_only`: the user's
        breakpoints and the watch scope guards (a step landed here)."""
        verdict = judge_trap_hit(trap, tid, user_only=user_only)
        stop_ids, internal, note = verdict.stop_ids, verdict.internal, verdict.note
        finished, left = verdict.finished, verdict.left
        for ident in finished:
            bp = self.table.by_id[ident]
            self.remove_logical(ident)
            if not bp.internal:
                self._events.put(BreakpointChanged(bp.info(False), removed=True))
        gone = tuple(left)
        if stop_ids:
            return Stopped(StopReason.BREAKPOINT, tid, breakpoint_ids=tuple(stop_ids), address=trap.address,
                           watches_left=gone)  # fmt: skip
        if internal is not None:
            return Stopped(internal, tid, address=trap.address, description=note, watches_left=gone)
        if gone:
            return Stopped(StopReason.WATCHPOINT_SCOPE, tid, breakpoint_ids=gone, address=trap.address,
                           watches_left=gone)  # fmt: skip
        return None

    def drop_internal(self) -> None:
        for bp in list(self.table.by_id.values()):
            if bp.internal:
                trap = self.table.remove(bp.id)
                if not trap.logical:
                    self.table.drop_trap(trap.address)
