"""The trap a call into the program returns to, the same for every backend: an internal,
temporary breakpoint at the return address for the calling thread alone (`ours`), which
reports a CALL_RETURNED step stop when it is hit later (a call left in a breakpoint
returns after the user's continue)."""

from __future__ import annotations

from typing import Callable

from aliceserver.debuggers.events import CALL_RETURNED, StopReason
from aliceserver.debuggers.ptrace.traps import LogicalBreakpoint, PhysicalTrap, TrapTable


def plant_return_trap(
    table: TrapTable,
    insert: Callable[[PhysicalTrap], object],
    address: int,
    ours: Callable[[int], bool],
    on_hit: Callable[[int], None],
) -> int:
    """The trap at `address` added to `table` and put in with `insert` (the backend's);
    its id, for CallThread.drop_return_trap."""
    bp = LogicalBreakpoint(
        table.new_internal_id(), address, temporary=True, internal=True,
        condition=ours, on_hit=on_hit, reports=StopReason.STEP, note=CALL_RETURNED,
    )  # fmt: skip
    insert(table.add(bp, b""))
    return bp.id
