"""The client's breakpoints as the debug console's table sees them (adapters/console/
host_breakpoints): one table and one numbering, as in gdb's own DAP. The console's
`delete N` removes one of them and tells the client with a `breakpoint` event (reason
`removed`); the rest of its settings stay the client's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.adapters.console.host_breakpoints import HostBreakpoint
from aliceserver.adapters.dap import breakpoints
from aliceserver.adapters.dap.breakpoints import DATA
from aliceserver.adapters.mi.breakpoints import BREAKPOINT, WATCH_TYPES

if TYPE_CHECKING:
    from aliceserver.adapters.dap.breakpoints import DapBreakpoint
    from aliceserver.adapters.dap.session import DapSession

# What a data breakpoint of each size watches, as an expression gdb's console can show.
_SIZED = {1: "char", 2: "short", 4: "int", 8: "long"}


class ClientBreakpoints:
    owner = "the client"

    def __init__(self, session: DapSession) -> None:
        self._session = session

    def host_breakpoints(self) -> list[HostBreakpoint]:
        return [_row(bp) for bp in self._session.breakpoints.every()]

    def delete_host_breakpoint(self, number: int) -> None:
        session = self._session
        if breakpoints.delete(session, number):
            session.send_event("breakpoint", {"reason": "removed", "breakpoint": {"id": number, "verified": False}})


def _row(bp: DapBreakpoint) -> HostBreakpoint:
    if bp.kind is DATA:
        size = int(str(bp.key[0]).partition("@")[0].partition("/")[2] or 0)
        what = f"*({_SIZED.get(size, 'char')} *) {bp.address or 0:#x}"
        kind = WATCH_TYPES["" if bp.key[1] == "write" else "a"]
        return HostBreakpoint(bp.number, what, engine_id=bp.watch_id, condition=bp.condition,
                              hits=bp.hits, kind=kind)  # fmt: skip
    bound = bp.bound
    return HostBreakpoint(
        bp.number, bp.location, places=bound.locations if bound else (),
        address_ids=bound.breakpoint_ids if bound else (),
        engine_id=bound.id if bound else None, condition=bp.condition, hits=bp.hits, kind=BREAKPOINT,
    )  # fmt: skip
