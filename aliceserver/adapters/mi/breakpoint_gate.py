"""A breakpoint's gate for the engine, and gdb's =breakpoint-modified at each ignored hit.

gdb notifies at every hit an ignore count lets go (bpstat_check_breakpoint_conditions:
times=2 ignore=2, times=3 ignore=1, times=4, then the stop's own times=5). Ours are let go on
the engine's tracer thread (the gate) or in the program (a jump patch's trampoline, handed
back by `skipped` when the engine looks at the next stop): each is recorded in the order the
engine learns of it, and told when the session takes the next stop or exit, before that
stop's own notification, with the count and the ignore count gdb shows at that hit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable

from aliceserver.adapters.mi.breakpoint_record import MiBreakpoint
from aliceserver.adapters.mi.output import Value

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession
    from aliceserver.debuggers.base import BreakpointCondition
    from aliceserver.debuggers.logpoints import LogSpec


@dataclass
class IgnoredHits:
    """The hits ignore counts let go since the last stop, one entry each, in order."""

    # appended on the tracer thread (list.extend of a list is atomic), taken on the main one
    order: list[MiBreakpoint] = field(default_factory=list)

    def let_go(self, bp: MiBreakpoint, count: int = 1) -> None:
        self.order.extend([bp] * count)

    def tell(self, session: MiSession) -> None:
        """One =breakpoint-modified per hit let go; called before the hits seen since the
        last stop are added to `hits` (the program stopped or gone)."""
        taken = len(self.order)
        hits, self.order[:taken] = self.order[:taken], []
        left = Counter(hits)  # of each one's hits, those not told yet
        times = {bp: bp.hits for bp in left}
        for bp in hits:
            if bp.dead or session.breakpoints.entries.get(bp.number) is not bp:
                continue
            times[bp] += 1
            left[bp] -= 1  # the ignore count at that hit: what it is now plus the later ones
            row = session.breakpoints.tuple(bp)
            row = replace(row, items=_at_hit(row.items, times[bp], bp.ignore + left[bp]))
            session.notify("breakpoint-modified", [("bkpt", row)])


def _at_hit(items: Sequence[tuple[str, Value]], times: int, ignore: int) -> list[tuple[str, Value]]:
    """A breakpoint's fields with `times` and `ignore` as at one hit (gdb leaves out an
    ignore count of 0)."""
    shown: list[tuple[str, Value]] = []
    for key, value in items:
        if key == "times":
            shown.append((key, str(times)))
            if ignore:
                shown.append(("ignore", str(ignore)))
        elif key != "ignore":
            shown.append((key, value))
    return shown


class Gate:
    """A breakpoint's gate for the engine. An engine may judge part of it in the program (a
    jump patch): `necessary`, the condition the gate is false without, doing nothing else;
    `ignored`, the hits after it to let go before stopping (gdb's ignore count), which the
    engine counts itself and hands back with `skipped`; `logged`, a dprintf the engine may
    print from the program's records without stopping it (dprintf.py's log_spec)."""

    def __init__(self, judge: Callable[[int], bool], bp: MiBreakpoint,
                 log: Callable[[], LogSpec | None] = lambda: None,
                 ignored_hits: IgnoredHits | None = None) -> None:  # fmt: skip
        self._judge = judge
        self._bp = bp
        self.logged = log
        self._ignored_hits = ignored_hits

    def __call__(self, tid: int) -> bool:
        return self._judge(tid)

    def necessary(self) -> BreakpointCondition | None:
        return self._bp.condition_fn

    def ignored(self) -> int:
        bp = self._bp  # a thread's breakpoint counts that thread's hits alone: not in the program
        return bp.ignore if bp.thread is None and bp.enabled and not bp.dead else 0

    def skipped(self, count: int) -> None:
        """`count` hits let go in the program: counted, and taken off the ignore count."""
        self._bp.unseen_hits += count
        self._bp.ignore = max(0, self._bp.ignore - count)
        if self._ignored_hits is not None:
            self._ignored_hits.let_go(self._bp, count)
