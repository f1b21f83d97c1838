"""gdb's breakpoint table on top of the engine's location breakpoints and watchpoints.

Numbers, hit counts, conditions, ignore counts and temporary deletion are kept here;
the engine is asked only to stop at places (through a gate it calls at each hit).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from aliceserver.adapters.mi import catchpoints as catches
from aliceserver.adapters.mi import hit_numbers, locations, watch_enable
from aliceserver.adapters.mi.breakpoint_gate import Gate as _Gate
from aliceserver.adapters.mi.breakpoint_gate import IgnoredHits
from aliceserver.adapters.mi.breakpoint_record import (
    BREAKPOINT,
    DPRINTF,
    TRACEPOINT,
    WATCH_KEYS,
    WATCH_TYPES,
    MiBreakpoint,
    core_kind,
    place_items,
    resolver_type,
)
from aliceserver.adapters.mi.debug_registers import NO_HARDWARE
from aliceserver.adapters.mi.frames import display_value, hex16
from aliceserver.adapters.mi.inferior_list import engine_inferior
from aliceserver.adapters.mi.output import Results, Value
from aliceserver.adapters.mi.pending_query import LocationNotFound
from aliceserver.adapters.mi.registry import MiError
from aliceserver.debuggers.base import BreakpointCondition
from aliceserver.debuggers.model import CodeLocation, WatchKind
from aliceserver.errors import AliceError
from aliceserver.session.breakpoints import BreakpointKind, BreakpointNumbers

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession
    from aliceserver.adapters.mi.watch_gate import Verdict as WatchVerdict

logger = logging.getLogger(__name__)


# the record lives in breakpoint_record; its callers import it from here too
__all__ = ["BREAKPOINT", "DPRINTF", "TRACEPOINT", "WATCH_KEYS", "WATCH_TYPES", "BreakpointTable", "MiBreakpoint", "core_kind"]

_HDR: list[tuple[str, str, str, str]] = [
    ("7", "-1", "number", "Num"), ("14", "-1", "type", "Type"), ("4", "-1", "disp", "Disp"),
    ("3", "-1", "enabled", "Enb"), ("18", "-1", "addr", "Address"), ("40", "2", "what", "What"),
]  # fmt: skip


_Field = tuple[str, Value]  # one name=value of a record (the class below has a method named tuple)


def bitfield_location(address: int, bit_offset: int, bit_size: int, type_name: str) -> tuple[str, str]:
    """The bytes holding a bit-field (1, 2, 4 or 8 from the byte of its first bit) as an
    lvalue to watch, and its value out of them: shifted left to drop the bits above it,
    then right (arithmetic for a signed type) to drop those below, as its type."""
    first, shift = address + bit_offset // 8, bit_offset % 8
    width = next(n for n in (1, 2, 4, 8) if shift + bit_size <= n * 8)
    container = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long"}[width]
    watched = f"* ({container} *) {first:#x}"
    wide = "long long" if not type_name.startswith("unsigned") and "bool" not in type_name else "unsigned long long"
    value = f"({type_name}) (({wide}) ((unsigned long long) {watched} << {64 - shift - bit_size}) >> {64 - bit_size})"
    return watched, value


def _watch_kind(bp: MiBreakpoint) -> WatchKind:
    return WatchKind.WRITE if bp.gdb_type == WATCH_TYPES[""] else WatchKind.READ_WRITE


@dataclass
class BreakpointTable:
    session: MiSession
    entries: dict[int, MiBreakpoint] = field(default_factory=dict)
    # The session's numbering (the session core's): shared with a hosting front end's own
    # breakpoints (the DAP client's, the agent's), as gdb numbers them all in one count.
    numbers: BreakpointNumbers = field(default_factory=BreakpointNumbers)
    # The catchpoint each catch stop was judged for, until the stop is told (several stops
    # may be judged while the threads are being stopped, and told one by one later).
    caught: list[tuple[object, MiBreakpoint]] = field(default_factory=list)
    # watch_gate's verdicts at the engine's traps, by thread, until the stop is told
    watch_verdicts: dict[int, WatchVerdict] = field(default_factory=dict)
    watch_gate_installed: bool = False
    trace_count: int = 0  # the number of the last tracepoint made (gdb's tracepoint_count)
    trace_variables: dict[str, int] = field(default_factory=dict)  # name -> initial (trace_variables.py)
    syscall_names: catches.SyscallNames = field(default_factory=catches.SyscallNames)
    ignored_hits: IgnoredHits = field(default_factory=IgnoredHits)  # each told at the next stop
    _probe_image: tuple[int, int, int] | None = None  # the main image (low, high, base) in the probe

    @property
    def next_number(self) -> int:
        """The number the next breakpoint, watchpoint or catchpoint gets."""
        return self.numbers.next

    @next_number.setter
    def next_number(self, value: int) -> None:
        made = value > self.numbers.next
        self.numbers.next = value
        if made:  # gdb's $bpnum: the last one made
            hit_numbers.made(self.session, value - 1)

    # --- creation ----------------------------------------------------------------------
    def normalize(self, location: str, last_displayed: bool = False) -> str:
        """The engine's spec for a location in gdb's syntax (locations.py)."""
        return locations.spec_of(self.session, location, last_displayed)

    def create(
        self,
        location: str,
        *,
        temporary: bool = False,
        condition: str | None = None,
        ignore: int = 0,
        enabled: bool = True,
        pending_ok: bool = False,
        thread: int | None = None,
        quiet_pending: bool = False,
        force_condition: bool = False,
        warn: Callable[[str], None] | None = None,
        kind: str = BREAKPOINT,
        hardware: bool = False,
    ) -> tuple[MiBreakpoint, str | None]:
        """A new breakpoint; the second item is the not-found message for a pending one.
        As gdb, a condition must make sense at one of its locations at least (unless
        forced); the locations where it does not are disabled, each `warn`ed about.
        `hardware`: gdb's hbreak, which needs a live process (debug_registers.py)."""
        spec = self.normalize(location)
        session = self.session
        places, program_of = locations.resolve_in_programs(session, spec)
        problem = None
        if not places:
            problem = locations.not_found(session, spec, location)
            unread = not session.has_symbols()  # (a program's not probed yet: kept pending)
            if unread and not session.inferior.program:  # no `file` yet
                problem = 'No symbol table is loaded.  Use the "file" command.'
            if not pending_ok and (not unread or not session.inferior.program):
                raise (MiError if spec.startswith("*") else LocationNotFound)(problem)
        if hardware and session.inferior.process is None:  # gdb's exec target has no debug registers
            raise MiError(NO_HARDWARE)
        condition_fn = session.debugger.expression_condition(condition) if condition else None
        failures = self._condition_failures(condition, places) if condition else [None] * len(places)
        if failures and all(failures) and not force_condition:
            raise MiError(str(failures[-1]))  # gdb's error at its last location
        original = location.strip()
        if original.isdigit():  # gdb names the current source file by its full name (linespec.c)
            original = f"{spec.rpartition(':')[0]}:{original}"
        bp = MiBreakpoint(self.next_number, core_kind(kind, spec), original, condition, temporary=temporary,
                          enabled=enabled, condition_fn=condition_fn, ignore_count=ignore, thread=thread,
                          spec=spec, places=tuple(places), gdb_type=kind, inferior=program_of,
                          hardware=hardware)
        bp.cond_disabled = frozenset(place.address for place, failure in zip(places, failures, strict=True) if failure)
        resolver_type(bp)
        for index, failure in enumerate(failures, 1):
            if failure and warn is not None:  # gdb's, before the breakpoint has its number
                warn(f"warning: failed to validate condition at location {index}, disabling:\n  ")
                warn(f"{failure}\n")
        self.next_number += 1
        self.entries[bp.number] = bp
        if enabled or bp.bound_disabled:
            self.arm(bp)
        return bp, None if quiet_pending else problem

    def _condition_failures(self, condition: str, places: list[CodeLocation] | tuple[CodeLocation, ...]) -> list[str | None]:
        """gdb's error for `condition` at each place (None where it parses); a syntax error
        is raised, as it is the same everywhere."""
        return [self.session.debugger.condition_problem(condition, place.address) for place in places]

    def not_found(self, spec: str) -> str:
        return locations.not_found(self.session, spec)

    def create_watch(self, expression: str, mode: str, *, location: bool = False) -> MiBreakpoint:
        """A watchpoint now; before the program runs, as gdb, one that is set when it starts
        (the expression must make sense already: on the program's globals). `location`:
        gdb's `watch -location`, on the memory the expression names now, with no frame to
        die with (a watch on locals otherwise ends when their frame returns)."""
        session = self.session
        if not self.watch_gate_installed:
            from aliceserver.adapters.mi import (
                watch_gate,  # (a session without watchpoints never imports it)
            )

            watch_gate.install(session)
            self.watch_gate_installed = True
        watched, bits = self._location_of(expression) if location else (expression, "")
        shown = f"-location {expression}" if location else expression
        no_hardware = session.settings.get("can-use-hw-watchpoints") == "0"
        if no_hardware and mode:
            raise MiError("Can't set read/access watchpoint when hardware watchpoints are disabled.")
        bp = MiBreakpoint(self.next_number, BreakpointKind.DATA_WATCH, shown, gdb_type=WATCH_TYPES[mode],
                          spec=watched if location else "", shown_spec=bits, software=no_hardware)
        if session.inferior.process is not None:
            tid, level = session.selected_frame()
            try:
                info = session.debugger.watch_expression(watched, _watch_kind(bp), tid, level, software=no_hardware)
            except AliceError as error:  # a register's, or too wide: gdb's read/access refusal
                if mode and ("is not in memory" in str(error) or "debug registers" in str(error)):
                    raise MiError("Expression cannot be implemented with read/access watchpoint.") from None
                raise
            bp.engine_id, bp.software = info.id, info.software
        else:
            session.ensure_symbols()
            session.evaluate_display(watched)  # `No symbol "x" in current context.`
        try:
            bp.old_value = session.evaluate_display(bp.value_expression)
        except AliceError:
            bp.old_value = None
        self.next_number += 1
        self.entries[bp.number] = bp
        return bp

    def _location_of(self, expression: str) -> tuple[str, str]:
        """What `watch -location EXPR` watches: `*(TYPE *) ADDRESS`, as gdb spells it; and
        for a bit-field, the expression of its bits in those bytes (else "")."""
        found = self.session.evaluate(expression)
        if found.address is None:
            raise MiError("Attempt to take address of value not located in memory.")
        if found.bits is None:
            return f"* ({found.type} *) {found.address:#x}", ""
        return bitfield_location(found.address, *found.bits, found.type)

    def _arm_watch(self, bp: MiBreakpoint) -> None:
        """Set a watchpoint made before this process started, in its first thread."""
        session = self.session
        threads = session.debugger.threads()
        if not threads:
            return
        tid = threads[0].tid
        try:
            watched = bp.spec or bp.location
            software = session.settings.get("can-use-hw-watchpoints") == "0"
            info = session.debugger.watch_expression(watched, _watch_kind(bp), tid, 0, software=software)
            bp.engine_id, bp.software = info.id, info.software
            bp.old_value = display_value(session.evaluate(watched, tid=tid, level=0))
        except AliceError as error:  # told: a watchpoint that watches nothing is no silent matter
            logger.info("watchpoint %d stays unset in the new process: %s", bp.number, error)
            session.console_all(f"warning: watchpoint {bp.number} is not set in this process: {error}\n")

    def _gate(self, bp: MiBreakpoint) -> BreakpointCondition:
        session = self.session

        def gate(tid: int) -> bool:
            # Runs on the engine's tracer thread at each hit: gdb's order is thread,
            # condition, then the hit counts and the ignore count eats it.
            if bp.dead or not bp.enabled:
                return False
            if bp.thread is not None and session.inferior.threads.get(tid) != bp.thread:
                return False
            try:
                if bp.condition_fn is not None and not bp.condition_fn(tid):
                    return False
            except Exception:  # an error in the condition stops, the hit counted (gdb's)
                bp.unseen_hits += 1
                raise
            bp.unseen_hits += 1
            if bp.ignore > 0 or bp.is_resolver:  # (a resolver's: counted, never a stop)
                bp.ignore = max(bp.ignore - 1, 0)
                self.ignored_hits.let_go(bp)
                return False
            if bp.disable_after:  # its trap stays (a tracer-thread gate cannot remove it): unseen
                bp.enable_count -= 1
                bp.enabled = bp.enable_count > 0
            return True

        from aliceserver.adapters.mi.dprintf import logged_by  # (it imports this module)

        return _Gate(gate, bp, logged_by(session, bp), self.ignored_hits)

    def arm(self, bp: MiBreakpoint) -> None:
        if bp.is_watch or bp.catch is not None or bp.engine_id is not None:
            return
        if bp.gdb_type == TRACEPOINT:  # never inserted: placed anew by refresh (a start moves a PIE)
            return
        self._probe_image = None if self.session.inferior.process is not None else self._probe_image
        info = self.session.debugger.insert_location_breakpoint(bp.spec or bp.location, condition=self._gate(bp), enabled=bp.enabled)
        bp.engine_id = info.id
        old, bp.places = bp.places, info.locations
        bp.address_ids = info.breakpoint_ids
        self._recheck_locations(bp, old)

    def _place_tracepoint(self, bp: MiBreakpoint) -> bool:
        """Resolve a tracepoint's location again; whether its places changed."""
        try:
            places = tuple(self.session.debugger.resolve_location(bp.spec or bp.location))
        except AliceError:
            return False  # kept as they were
        if places == bp.places:
            return False
        old, bp.places = bp.places, places
        self._recheck_locations(bp, old)
        return True

    def _recheck_locations(self, bp: MiBreakpoint, old: tuple[CodeLocation, ...]) -> None:
        """After its places changed (a start, a library loaded): as gdb's re-set, a known
        location keeps its state and the condition is parsed afresh at each new one, which
        is disabled, silently, where it fails. Then the engine skips the disabled ones."""
        if bp.condition and bp.places:
            known = {place.address for place in old}
            fresh = [place for place in bp.places if place.address not in known]
            try:
                failures = self._condition_failures(bp.condition, fresh)
            except AliceError:
                failures = ["invalid"] * len(fresh)
            current = {place.address for place in bp.places}
            bp.cond_disabled = frozenset(
                (bp.cond_disabled & known & current)
                | {place.address for place, failure in zip(fresh, failures, strict=True) if failure}
            )
        bp.loc_disabled &= {place.address for place in bp.places}
        bp.shlib_disabled = frozenset()
        self._apply_cond_disabled(bp, bp.cond_disabled | bp.loc_disabled)
        resolver_type(bp)

    def _apply_cond_disabled(self, bp: MiBreakpoint, changed: frozenset[int]) -> None:
        """Set the engine's traps of the locations at `changed` as their states say."""
        off = bp.cond_disabled | bp.loc_disabled
        for place, ident in zip(bp.places, bp.address_ids, strict=False):
            if place.address in changed:
                try:
                    self.session.debugger.enable_breakpoint(ident, bp.enabled and place.address not in off)
                except AliceError as error:
                    logger.info("location %#x of breakpoint %d not updated: %s", place.address, bp.number, error)

    def set_location_enabled(self, bp: MiBreakpoint, index: int, enabled: bool) -> None:
        """gdb's enable_disable_bp_location: location `index` (1-based) of `bp`."""
        if not 1 <= index <= len(bp.places):
            raise MiError(f"Bad breakpoint location number '{index}'")
        address = bp.places[index - 1].address
        if enabled and address in bp.cond_disabled:
            raise MiError(f"Breakpoint {bp.number}'s condition is invalid at location {index}, cannot enable.")
        bp.loc_disabled = bp.loc_disabled - {address} if enabled else bp.loc_disabled | {address}
        if bp.engine_id is not None:
            self._apply_cond_disabled(bp, frozenset({address}))

    def disarm(self, bp: MiBreakpoint) -> None:
        if bp.engine_id is None:
            return
        ident, bp.engine_id = bp.engine_id, None
        try:
            if bp.is_watch:
                self.session.debugger.remove_watchpoint(ident)
            else:
                self.session.debugger.remove_location_breakpoint(ident)
        except AliceError:
            pass  # gone with its process
        bp.address_ids = ()

    def delete(self, bp: MiBreakpoint) -> None:
        bp.dead = True
        self.disarm(bp)
        self.entries.pop(bp.number, None)
        if bp.catch is not None:
            self._sync_catches()

    def _sync_catches(self) -> None:
        from aliceserver.adapters.mi.catch_stops import sync

        try:
            sync(self.session)
        except AliceError as error:
            logger.info("catchpoints not updated: %s", error)

    def get(self, text: str) -> MiBreakpoint:
        if text == "$bpnum":  # gdb's number of the last breakpoint set (save breakpoints' files)
            text = str(self.next_number - 1)
        try:
            number = int(text.split(".")[0])
        except ValueError:
            raise MiError(f'Bad breakpoint argument: \'{text}\'') from None
        if number not in self.entries:
            raise MiError(f"No breakpoint number {number}.")
        return self.entries[number]

    def set_enabled(self, bp: MiBreakpoint, enabled: bool) -> None:
        bp.enabled = enabled
        if bp.catch is not None:
            self._sync_catches()
        if bp.is_watch:  # out of the debug registers while disabled
            watch_enable.set_enabled(self, bp, enabled)
        if bp.is_watch or bp.catch is not None:
            return
        if bp.bound_disabled and bp.engine_id is not None:  # gdb's enable re-sets no location
            self.session.debugger.enable_location_breakpoint(bp.engine_id, enabled)
            self._apply_cond_disabled(bp, frozenset(place.address for place in bp.places))
        else:
            (self.arm if enabled else self.disarm)(bp)

    def set_condition(self, bp: MiBreakpoint, condition: str, *, force: bool = False,
                      say: Callable[[str], None] | None = None, warn: Callable[[str], None] | None = None) -> None:
        """gdb's set_breakpoint_condition: refused (the old one kept) unless it parses at one
        location at least or is forced; each location where it fails is disabled with a
        warning, each disabled one where it now parses is enabled again (`say`)."""
        text = condition.strip()
        condition_fn = self.session.debugger.expression_condition(text) if text else None
        located = not bp.is_watch and bp.catch is None
        failures = self._condition_failures(text, bp.places) if text and located else [None] * len(bp.places)
        if failures and all(failures) and not force:
            raise MiError(str(failures[-1]))
        for index, (place, failure) in enumerate(zip(bp.places, failures, strict=True), 1):
            mine = place.address not in bp.loc_disabled  # gdb tells only of a location enabled by hand
            if failure and warn is not None and mine:
                warn(f"warning: failed to validate condition at location {bp.number}.{index}, disabling:\n  ")
                warn(f"{failure}\n")
            elif not failure and place.address in bp.cond_disabled and say is not None and mine:
                say(f"Breakpoint {bp.number}'s condition is now valid at location {index}, enabling.\n")
        was = bp.cond_disabled
        bp.cond_disabled = frozenset(place.address for place, failure in zip(bp.places, failures, strict=True) if failure)
        bp.condition_fn = condition_fn
        bp.condition = text or None
        if bp.engine_id is not None:
            self._apply_cond_disabled(bp, was ^ bp.cond_disabled)

    # --- the program's life ----------------------------------------------------------------
    def refresh(self) -> list[MiBreakpoint]:
        """Take the engine's current places; the breakpoints whose places changed."""
        try:
            known = {info.id: info for info in self.session.debugger.location_breakpoints()}
        except AliceError:
            return []
        changed = []
        for bp in self.entries.values():
            if bp.gdb_type == TRACEPOINT and bp.enabled and self._place_tracepoint(bp):
                changed.append(bp)
            info = known.get(bp.engine_id) if bp.engine_id is not None else None
            if info is None:
                continue
            if info.locations != bp.places:
                bp.unloaded = not info.locations
                old, bp.places = bp.places, info.locations
                bp.address_ids = info.breakpoint_ids
                self._recheck_locations(bp, old)
                changed.append(bp)
            bp.address_ids = info.breakpoint_ids
        return changed

    def rearm_all(self) -> None:
        """After a start: bind every enabled breakpoint afresh in the new process, and set
        the watchpoints on globals (made before the start, or kept from the last run)."""
        for bp in self.sorted():
            if bp.is_watch and bp.enabled and bp.engine_id is None:
                self._arm_watch(bp)
            elif not bp.is_watch:
                self.disarm(bp)
                if bp.enabled or bp.bound_disabled:
                    try:
                        self.arm(bp)
                    except AliceError:
                        bp.places = ()

    def program_gone(self) -> None:
        """Watchpoints die with their process (the engine's taken out: the next run sets
        them afresh, and stale ones would hold its debug registers); breakpoints stay."""
        for bp in list(self.entries.values()):
            if bp.is_watch:
                self.disarm(bp)

    def for_address_ids(self, ids: tuple[int, ...]) -> list[MiBreakpoint]:
        found = [bp for bp in self.entries.values() if not bp.is_watch and set(ids) & set(bp.address_ids)]
        if not found and ids:
            self.refresh()
            found = [bp for bp in self.entries.values() if not bp.is_watch and set(ids) & set(bp.address_ids)]
        # A stop shared with a dprintf is told as the other breakpoint's (gdb's bpstat print)
        return sorted(found, key=lambda bp: (bp.dprintf is not None, bp.number))

    def for_watch_ids(self, ids: tuple[int, ...]) -> list[MiBreakpoint]:
        return [bp for bp in self.entries.values() if bp.is_watch and bp.engine_id in ids]

    # --- output ------------------------------------------------------------------------
    def shown_address(self, address: int) -> int:
        """As gdb before `run`: the program's link-time address (a PIE is not loaded yet;
        ours is, in the symbol probe), relocated once the process runs: the process or
        probe of the inferior whose program the engine holds."""
        holder = engine_inferior(self.session)
        if holder.process is not None or holder.ran:  # (a probe after a run: as that run's)
            self._probe_image = None
            return address
        if holder.probe_pid is not None:
            try:
                modules = self.session.debugger.modules()
            except AliceError:
                return address
            self._probe_image = next(((m.low, m.high, m.base) for m in modules if m.is_main), None)
        image = self._probe_image  # kept where the probe ended (another inferior's `print`)
        return address - image[2] if image is not None and image[0] <= address < image[1] else address

    def tuple(self, bp: MiBreakpoint) -> Results:
        items: list[tuple[str, Value]] = [
            ("number", str(bp.number)),
            ("type", bp.shown_type),
            ("disp", bp.disposition),
            ("enabled", "y" if bp.enabled else "n"),
        ]
        if bp.catch is not None:
            return Results(items + catches.mi_items(bp, bp.catch))
        if bp.is_watch:
            items.append(("what", bp.location))
        elif bp.shown_pending:
            items += self.addr_item("<PENDING>") + [("pending", bp.location)]
        elif len(bp.places) == 1 and not bp.located_apart:
            items += self.addr_item(hex16(self.shown_address(bp.places[0].address))) + place_items(bp.places[0], self.session.frames.file_name, self.session.frames.fullname, self.symbolic)
        else:
            items += self.addr_item("<MULTIPLE>")
        if (bp.unloaded or not bp.pending) and not bp.is_watch and not bp.located_apart:  # gdb: its locations' only
            items.append(("thread-groups", ["i1"]))
        elif bp.is_watch and bp.engine_id is not None and self.session.inferior.process is not None:
            items.append(("thread-groups", ["i1"]))  # a watchpoint's location: set in the live process
        if bp.thread is not None:
            items.append(("thread", str(bp.thread)))
        if bp.condition:
            items.append(("cond", bp.condition))
        items.append(("times", str(bp.hits)))
        if bp.ignore:
            items.append(("ignore", str(bp.ignore)))
        if bp.enable_count > 1:  # gdb's: one is `enable once`, told by disp="dis"
            items.append(("enable", str(bp.enable_count)))
        script = self.script(bp)
        if script:  # MI 4 writes it as a list, MI 2 and 3 as a tuple of bare strings
            fixed = self.session.config.mi_version >= 4 or self.session.config.script_fixed
            items.append(("script", script if fixed else Results([("", line) for line in script])))
        if bp.gdb_type == TRACEPOINT:
            if bp.passcount:
                items.append(("pass", str(bp.passcount)))
            if len(bp.places) == 1 and not bp.located_apart:
                items.append(("installed", "n"))
        items.append(("original-location", bp.location))
        if bp.located_apart:
            locations: list[Value] = []
            for index, place in enumerate(bp.places, 1):
                # a location's own state: its breakpoint's is the row's (gdb's MI)
                gone = place.address in bp.shlib_disabled  # (a detach forgot its library)
                entry: list[tuple[str, Value]] = [
                    ("number", f"{bp.number}.{index}"), ("enabled", bp.location_state(place.address)),
                    *self.addr_item("<PENDING>" if gone else hex16(self.shown_address(place.address))),
                ]
                entry += [("pending", bp.location)] if gone else place_items(place, self.session.frames.file_name, self.session.frames.fullname, self.symbolic)
                entry.append(("thread-groups", ["i1"]))
                if bp.gdb_type == TRACEPOINT:
                    entry.append(("installed", "n"))
                locations.append(Results(entry))
            config = self.session.config
            if config.mi_version < 3 and not config.multi_location_fixed:
                return Results(items, trailing=locations)
            items.append(("locations", locations))
        return Results(items)

    def addr_item(self, text: str) -> list[_Field]:
        """The addr field, which gdb leaves out under `print address off`."""
        return [("addr", text)] if self.session.settings.get("print address") == "on" else []

    def script(self, bp: MiBreakpoint) -> list[str]:
        """Its command list: a dprintf's is its printf line (or its call, dprintf.py)."""
        if bp.dprintf is not None:  # (gdb makes it once the dprintf has had a place)
            return [bp.dprintf_line or f"printf {bp.dprintf}"] if bp.places or bp.unloaded else []
        return list(self.session.command_memory.breakpoint_commands.get(bp.number, ()))

    def table(self, rows: list[MiBreakpoint] | None = None) -> Results:
        """The table of `rows` (all by default)."""
        rows = self.sorted() if rows is None else rows
        # gdb sizes the address column for 64-bit addresses once a row has an address.
        wide = any(self.shows_address(bp) for bp in rows)
        addresses = self.session.settings.get("print address") == "on"  # off: gdb has no Address column
        typed = str(max(14, *(len(bp.shown_type) for bp in rows))) if rows else "14"  # print_type_col_width
        hdr: list[Value] = [
            {"width": "10" if n == "addr" and not wide else typed if n == "type" else w, "alignment": a, "col_name": n, "colhdr": h}
            for w, a, n, h in _HDR if addresses or n != "addr"
        ]
        body = Results([("bkpt", self.tuple(bp)) for bp in rows], as_list=True)
        return Results([("nr_rows", str(len(rows))), ("nr_cols", str(len(hdr))), ("hdr", hdr), ("body", body)])

    def any_address(self) -> bool:
        return any(self.shows_address(bp) for bp in self.entries.values())

    def shows_address(self, bp: MiBreakpoint) -> bool:
        """Whether `bp` has a location whose address sizes gdb's column: a watchpoint has
        none until a process runs (gdb makes its locations only then)."""
        return bp.has_address and not (bp.is_watch and self.session.inferior.process is None)

    def take_unseen_hits(self) -> None:
        """Count the hits the gate saw on the tracer thread (the program is stopped now),
        those let go by ignore counts told first, one by one (breakpoint_gate)."""
        self.ignored_hits.tell(self.session)
        for bp in self.entries.values():
            logged = len(bp.logged_hits)  # (the drainer may append more meanwhile: kept)
            del bp.logged_hits[:logged]
            bp.hits, bp.unseen_hits = bp.hits + bp.unseen_hits + logged, 0

    def sorted(self) -> list[MiBreakpoint]:
        return [self.entries[n] for n in sorted(self.entries)]

    def announce(self, bp: MiBreakpoint) -> str:
        """What `break` prints on the console."""
        word = "Temporary breakpoint" if bp.temporary else "Breakpoint"
        if bp.gdb_type == DPRINTF:
            word = "Dprintf"
        if bp.gdb_type == TRACEPOINT:
            word = "Tracepoint"
        if bp.hardware:
            word = "Hardware assisted breakpoint"  # temporary or not, as gdb's say_where
        if bp.catch is not None:
            return catches.mention(bp, bp.catch)
        if bp.is_watch:
            return f"{bp.watch_label} {bp.number}: {bp.location}\n"
        if bp.pending:
            return f"{word} {bp.number} ({self.what(bp)}) pending.\n"
        place = bp.places[0]
        # gdb's say_where: no address under `print address off` when the source says where
        at = f" at {self.shown_address(place.address):#x}"
        if place.source is not None and self.session.settings.get("print address") == "off":
            at = ""
        if len(bp.places) > 1:
            shown = bp.location
            if len(shown) > 2 and shown[0] == shown[-1] == "'" and "'" not in shown[1:-1]:
                shown = shown[1:-1]  # gdb's location string: a quoted name without its quotes
            named = f": {shown}." if place.source is not None else ""  # gdb's say_where
            return f"{word} {bp.number}{at}{named} ({len(bp.places)} locations)\n"
        if place.source is not None:
            return f"{word} {bp.number}{at}: file {self.session.frames.file_name(place.source.path, place.source.symtab)}, line {place.source.line}.\n"
        return f"{word} {bp.number}{' at gnu-indirect-function resolver' if bp.is_resolver else ''} at {self.shown_address(place.address):#x}\n"

    def what(self, bp: MiBreakpoint) -> str:
        if bp.catch is not None:
            return catches.info_what(bp.catch)
        if bp.is_watch:
            return bp.location
        if bp.shown_pending:  # gdb's extra_string: a dprintf's arguments, a console one's keywords
            extra = f",{bp.dprintf}" if bp.dprintf is not None else f" {bp.pending_extra}" if bp.pending_extra else ""
            return bp.location + extra
        return self.place_what(bp.places[0])

    def place_what(self, place: CodeLocation) -> str:
        if place.source is not None:
            within = f"in {place.function} at " if place.function else ""  # gdb: a sal without a symbol
            return f"{within}{self.session.frames.file_name(place.source.path, place.source.symtab)}:{place.source.line}"
        return self.symbolic(place) if place.function is not None else ""  # (no symbol: none)

    def symbolic(self, place: CodeLocation) -> str:
        """`<solib_step@plt>`, `<puts+4>`: a place without line info as gdb names it."""
        try:
            offset = self.session.debugger.lookup_address(place.address).offset
        except AliceError:
            offset = 0
        return f"<{place.function or '??'}{f'+{offset}' if offset else ''}>"

