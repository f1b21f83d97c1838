"""gdb's breakpoint convenience variables: `$bpnum`, the number of the last breakpoint,
watchpoint or catchpoint made, and (gdb 13) `$_hit_bpnum` / `$_hit_locno`, the number and
location number of the one a stop is told for. As gdb 13, a temporary one (tbreak,
tcatch) leaves the last two as they were: they serve `disable $_hit_bpnum.$_hit_locno` in
a breakpoint's commands, and a temporary one is gone by then."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.output import Value

if TYPE_CHECKING:
    from aliceserver.adapters.mi.breakpoints import MiBreakpoint
    from aliceserver.adapters.mi.session import MiSession

_WATCH_KEYS = ("wpt", "hw-rwpt", "hw-awpt")


def made(session: MiSession, number: int) -> None:
    """A breakpoint numbered `number` was made: gdb's set_breakpoint_number."""
    session.debugger.set_convenience("bpnum", number)


def hit(session: MiSession, pairs: Sequence[tuple[str, Value]], caught: MiBreakpoint | None) -> None:
    """A stop is told with these *stopped fields (or for a catchpoint): note what it hit."""
    found = dict(pairs)
    if caught is not None:
        number, location, temporary = caught.number, 1, caught.temporary
    elif isinstance(found.get("bkptno"), str) and found["bkptno"] != "0":
        locno = found.get("locno")
        number, temporary = int(str(found["bkptno"])), found.get("disp") == "del"
        location = int(locno) if isinstance(locno, str) else 1
    else:
        watch = next((found[key] for key in _WATCH_KEYS if key in found), None)
        if not isinstance(watch, dict) or not isinstance(watch.get("number"), str):
            return
        number, location, temporary = int(str(watch["number"])), 1, False
    if not temporary:
        session.debugger.set_convenience("_hit_bpnum", number)
        session.debugger.set_convenience("_hit_locno", location)
