"""The Control a step plan (source/stepping.py) moves a program behind a stub with: single
steps, range steps (`vCont;r`) and runs to internal traps, each a resume the session's
waiter takes the stop of (remote/session.py), the traps taken out when the plan ends."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from aliceserver.debuggers.events import StopReason
from aliceserver.debuggers.ptrace.traps import LogicalBreakpoint, TrapTable

if TYPE_CHECKING:
    from aliceserver.debuggers.remote.process import RemoteProcess
    from aliceserver.debuggers.remote.traps import RemoteTraps

Move = tuple[str, int | None]  # ("step" | "range" | "continue", thread or None: all)


class PlanControl:
    def __init__(self, issue: Callable[[Move], None], live: Callable[[], RemoteProcess],
                 table: TrapTable, traps: RemoteTraps) -> None:  # fmt: skip
        """`issue` resumes as a move says; `live` is the process (TargetError if none)."""
        self._issue, self._live, self._table, self._traps = issue, live, table, traps
        self.placed: list[int] = []  # the plan's traps, by id: out when it ends
        self.range = (0, 0)  # the last range step's [start, end)

    def drop_traps(self) -> None:
        idents, self.placed = self.placed, []
        for ident in idents:
            if ident in self._table.by_id:
                self._traps.remove_logical(ident)

    def single_step(self, tid: int) -> None:
        self._issue(("step", tid))

    def step_range(self, tid: int, start: int, end: int) -> bool:
        """RangeStepping (source/stepping.py): the stub steps `tid` while its pc stays in
        [start, end) (vCont;r, gdb's range stepping): a line in one round trip."""
        if "r" not in self._live().client.vcont:
            return False
        self.range = (start, end)
        self._issue(("range", tid))
        return True

    def run_alone_to(self, tid: int, address: int) -> None:
        self._plan_trap(address, lambda hit: hit == tid)
        self._issue(("continue", tid))

    def run_to(self, tid: int, address: int, min_sp: int) -> None:
        self.run_to_any(tid, [(address, min_sp)])

    def run_to_any(self, tid: int, targets: list[tuple[int, int]]) -> None:
        for address, min_sp in targets:
            def arrived(hit: int, min_sp: int = min_sp) -> bool:
                return hit == tid and self.sp(hit) >= min_sp

            self._plan_trap(address, arrived)
        self._issue(("continue", None))

    def sp(self, tid: int) -> int:
        process = self._live()
        return process.general_registers(tid)[process.arch.sp]

    def _plan_trap(self, address: int, arrived: Callable[[int], bool]) -> None:
        bp = LogicalBreakpoint(self._table.new_internal_id(), address, temporary=True, internal=True,
                               condition=arrived, reports=StopReason.STEP)  # fmt: skip
        self._traps.place(self._table.add(bp, b""), posted=True)  # with the resume that follows
        self.placed.append(bp.id)
