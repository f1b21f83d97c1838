"""`disable` and `enable` of a watchpoint, as gdb: a disabled one is out of the debug
registers (it never stops the program); enabled again, it watches the same memory, in the
same frame for a watch on locals, its old value the one of now (gdb's update_watchpoint).

The engine's watch is removed at `disable` and what it watched kept here; `enable` puts it
back. A watch on locals whose frame has returned meanwhile is deleted then, in gdb's words
(gdb deletes it when the frame returns, without stopping).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.breakpoint_record import MiBreakpoint
from aliceserver.debuggers.model import WatchpointInfo
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.breakpoints import BreakpointTable

# What each disabled watchpoint watched in the engine, in which process (gone with the
# breakpoint; in another process, a watch on globals is set afresh as at a start).
_Parked = tuple[object, WatchpointInfo]
_parked: weakref.WeakKeyDictionary[MiBreakpoint, _Parked] = weakref.WeakKeyDictionary()


def set_enabled(table: BreakpointTable, bp: MiBreakpoint, enabled: bool) -> None:
    """Take the watch `bp` out of the engine, or put it back (`bp.enabled` is set)."""
    debugger = table.session.debugger
    if not enabled:
        if bp.engine_id is not None:
            found = [info for info in debugger.watchpoints() if info.id == bp.engine_id]
            if found:
                _parked[bp] = (table.session.inferior.process, found[0])
            table.disarm(bp)
        return
    process, held = _parked.pop(bp, (None, None))
    if bp.engine_id is not None or table.session.inferior.process is None:
        return  # enabled already, or set when the program starts (rearm_all)
    if held is None or process is not table.session.inferior.process:  # not in this process
        table._arm_watch(bp)
        return
    try:
        bp.engine_id = debugger.insert_watchpoint(held.address, held.size, held.kind, held.scope).id
    except AliceError:
        if held.scope is None:
            raise
        _left_scope(table, bp)
        return
    try:
        bp.old_value = table.session.evaluate_display(bp.value_expression)
    except AliceError:
        pass  # a watch on locals from another frame: the value it had


def _left_scope(table: BreakpointTable, bp: MiBreakpoint) -> None:
    session = table.session
    session.console_all(
        f"\nWatchpoint {bp.number} deleted because the program has left the block in\n"
        "which its expression is valid.\n", mi=False, cli=True,
    )  # fmt: skip
    table.delete(bp)
    session.notify("breakpoint-deleted", [("id", str(bp.number))])
