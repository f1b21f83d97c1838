"""The host's breakpoints in the hosted console's table: one table, one numbering.

gdb's own DAP lists the breakpoints its client set beside the ones typed in its console,
under one numbering (the session core's BreakpointNumbers, which the host's records and
this table share). Here the host (DAP's breakpoint book, the agent's debug_breakpoint)
keeps its breakpoints and their engine breakpoints; the console's table holds a copy of
each (a HostEntry, made afresh before every command and stop), so `info breakpoints`,
a stop's `Breakpoint 2, ...` and `commands 2` see them. `delete N` removes one through its
host, which tells its client; enable, disable, condition and ignore are refused: the
client keeps those itself (DAP's Breakpoint has no field for them, and the client sends
its own again with its next request).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

from aliceserver.adapters.mi.breakpoints import BREAKPOINT, BreakpointTable, MiBreakpoint, core_kind
from aliceserver.adapters.mi.frames import display_value
from aliceserver.adapters.mi.registry import MiError
from aliceserver.debuggers.model import CodeLocation
from aliceserver.errors import AliceError


@dataclass(frozen=True, slots=True)
class HostBreakpoint:
    """One breakpoint the host's client set, as the console's table shows it."""

    number: int
    location: str  # what it was asked for (original-location), or a watch's expression
    places: tuple[CodeLocation, ...] = ()
    address_ids: tuple[int, ...] = ()
    engine_id: int | None = None  # the engine's location breakpoint or watchpoint
    condition: str | None = None
    hits: int = 0
    kind: str = BREAKPOINT  # or a watch type ("hw watchpoint", "acc watchpoint")
    temporary: bool = False
    enabled: bool = True


class BreakpointHost(Protocol):
    """The front end that set breakpoints of its own (DAP, the agent)."""

    owner: str  # in the refusals: "the client", "debug_breakpoint"

    def host_breakpoints(self) -> list[HostBreakpoint]: ...

    def delete_host_breakpoint(self, number: int) -> None:
        """Remove it as its client would, and tell the client (gone already: nothing)."""


@dataclass(eq=False)
class HostEntry(MiBreakpoint):
    """A host's breakpoint in the console's table."""

    host: BreakpointHost | None = None


@dataclass(eq=False)
class HostedTable(BreakpointTable):
    """The console's table with its host's breakpoints in it."""

    host: BreakpointHost | None = None

    def sync(self) -> None:
        """Take the host's breakpoints afresh (numbers, places, hits)."""
        for number in [n for n, bp in self.entries.items() if isinstance(bp, HostEntry)]:
            del self.entries[number]
        if self.host is None:
            return
        for given in self.host.host_breakpoints():
            if given.number in self.entries:  # never: one numbering; the console's wins
                continue
            entry = HostEntry(
                given.number, core_kind(given.kind, given.location), given.location, given.condition,
                gdb_type=given.kind, temporary=given.temporary, enabled=given.enabled, hits=given.hits,
                places=given.places, address_ids=given.address_ids, spec=given.location, host=self.host,
            )  # fmt: skip
            entry.engine_id = given.engine_id
            self.entries[given.number] = entry

    def _refuse(self, bp: MiBreakpoint, what: str) -> None:
        if isinstance(bp, HostEntry) and bp.host is not None:
            raise MiError(
                f"Breakpoint {bp.number} was set by {bp.host.owner}: {what} there "
                f"(delete {bp.number} removes it)."
            )

    def refuse_host(self, bp: MiBreakpoint, what: str) -> None:
        """For the commands that change a breakpoint the table does not see (ignore)."""
        self._refuse(bp, what)

    def delete(self, bp: MiBreakpoint) -> None:
        if isinstance(bp, HostEntry) and bp.host is not None:
            bp.dead = True
            self.entries.pop(bp.number, None)
            bp.host.delete_host_breakpoint(bp.number)
            return
        super().delete(bp)

    def set_enabled(self, bp: MiBreakpoint, enabled: bool) -> None:
        if bp.enabled != enabled:
            self._refuse(bp, "enable it" if enabled else "disable it")
        super().set_enabled(bp, enabled)

    def set_condition(self, bp: MiBreakpoint, condition: str, *, force: bool = False,
                      say: Callable[[str], None] | None = None, warn: Callable[[str], None] | None = None) -> None:
        self._refuse(bp, "change its condition")
        super().set_condition(bp, condition, force=force, say=say, warn=warn)

    def arm(self, bp: MiBreakpoint) -> None:
        if not isinstance(bp, HostEntry):  # its host's engine breakpoint is its own
            super().arm(bp)

    def disarm(self, bp: MiBreakpoint) -> None:
        if not isinstance(bp, HostEntry):
            super().disarm(bp)

    def program_gone(self) -> None:
        """The host's engine keeps its watchpoints for the next process (rearm_missing
        sets again the ones it does not have)."""

    def _watch_value(self, bp: MiBreakpoint) -> None:
        try:
            threads = self.session.debugger.threads()
            if threads:
                bp.old_value = display_value(self.session.evaluate(bp.value_expression, tid=threads[0].tid, level=0))
        except AliceError:
            bp.old_value = None

    def forget_engine(self) -> None:
        """Another debugger takes over: no engine id of ours means anything there."""
        for bp in self.entries.values():
            if not isinstance(bp, HostEntry):
                bp.engine_id, bp.address_ids = None, ()

    def rearm_missing(self) -> None:
        """In a new process, as gdb's `run`: hit counts cleared, and each of the console's
        own breakpoints the engine no longer has set afresh (the watchpoints too; the
        engine keeps its location breakpoints over a restart of the same debugger). The
        host re-sets its own."""
        debugger = self.session.debugger
        try:
            known = {info.id for info in debugger.location_breakpoints()}
            watched = {info.id for info in debugger.watchpoints()}
        except AliceError:
            known, watched = set(), set()
        for bp in [bp for bp in self.sorted() if not isinstance(bp, HostEntry)]:
            bp.hits = bp.unseen_hits = 0  # gdb's clear_breakpoint_hit_counts at a run
            del bp.logged_hits[:]
            if bp.is_watch:
                if bp.engine_id in watched:  # kept: its value is the new process's
                    self._watch_value(bp)
                elif bp.enabled:
                    bp.engine_id = None
                    self._arm_watch(bp)
            elif bp.catch is None and bp.engine_id not in known:
                bp.engine_id, bp.address_ids = None, ()
                if bp.enabled:
                    try:
                        self.arm(bp)
                    except AliceError:
                        bp.places = ()  # pending until a library has it
        self.refresh()
