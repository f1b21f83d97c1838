"""A read watchpoint's hit that was a write (gdb's bpstat_check_watchpoint): x86 cannot
trap reads alone, so a read watchpoint watches every access, and gdb takes a hit whose
value changed for a write and goes on without stopping (the watchpoint keeps the new
value). A write of the same value still looks like a read, as in gdb."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.adapters.mi.frames import display_value
from aliceserver.debuggers import events as ev
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

_READ = "read watchpoint"  # breakpoint_record.WATCH_TYPES["r"] (that module imports notify's)


def written_only(session: MiSession, stop: ev.Stopped) -> bool:
    """Whether every watchpoint of this stop is a read watchpoint whose value changed
    (each then keeps its new value): the stop is to be passed over."""
    if stop.reason is not ev.StopReason.WATCHPOINT or stop.watches_left:
        return False
    found = session.breakpoints.for_watch_ids(stop.breakpoint_ids)
    if not found or any(bp.gdb_type != _READ for bp in found):
        return False
    values = []
    for bp in found:
        try:
            values.append(display_value(session.evaluate(bp.spec or bp.location, tid=stop.thread_id, level=0)))
        except AliceError:
            return False
    if any(new == bp.old_value for bp, new in zip(found, values, strict=True)):
        return False
    for bp, new in zip(found, values, strict=True):
        bp.old_value = new
    return True
