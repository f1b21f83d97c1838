"""gdb's breakpoint as its table keeps it: the session core's record of a user breakpoint
(aliceserver/session) with gdb's own state (its type, locations, condition function, the
hits the gate counted on the tracer thread, enable counts, a catchpoint's or dprintf's)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from aliceserver.adapters.mi import catchpoints as catches
from aliceserver.adapters.mi.output import Value
from aliceserver.debuggers.base import BreakpointCondition
from aliceserver.debuggers.model import CodeLocation
from aliceserver.session.breakpoints import BreakpointKind, UserBreakpoint, kind_of_spec

BREAKPOINT = "breakpoint"
DPRINTF = "dprintf"  # a breakpoint that prints and goes on (dprintf.py)
TRACEPOINT = "tracepoint"  # made and listed, never inserted here (tracepoints.py)
# A breakpoint whose one location is an ifunc's resolver, its target not known yet (gdb's
# bp_gnu_ifunc_resolver): its hits are counted and never stop (BPSTAT_WHAT_SINGLE; gdb 13's
# breakpoint at the resolver's return is set in the inlined selector's caller, at the same
# pc, and so is never hit: it stays so)
IFUNC_RESOLVER = "STT_GNU_IFUNC resolver"
_LOCATED = (BREAKPOINT, DPRINTF, TRACEPOINT, IFUNC_RESOLVER)
WATCH_TYPES = {"": "hw watchpoint", "r": "read watchpoint", "a": "acc watchpoint"}
WATCH_KEYS = {"hw watchpoint": "wpt", "read watchpoint": "hw-rwpt", "acc watchpoint": "hw-awpt"}


def core_kind(gdb_type: str, spec: str) -> BreakpointKind:
    """The session core's kind of a breakpoint of gdb's type `gdb_type` at `spec`."""
    if gdb_type == catches.CATCHPOINT:
        return BreakpointKind.CATCH
    return kind_of_spec(spec) if gdb_type in _LOCATED else BreakpointKind.DATA_WATCH


@dataclass(eq=False)
class MiBreakpoint(UserBreakpoint):
    """The session core's record (number, location as given or the watched expression,
    condition, ignore count, thread as gdb's number, hits) with gdb's own state."""

    gdb_type: str = BREAKPOINT  # gdb's Type column: breakpoint, dprintf, hw watchpoint...
    condition_fn: BreakpointCondition | None = None
    # counted by the gate on the tracer thread, added to `hits` when the session takes the
    # next stop or exit: a notification of an earlier event shows gdb's count at that event
    unseen_hits: int = 0
    # a patched dprintf's records, one item each, appended by the logpoint drainer's thread:
    # list.append and `del [:n]` are atomic, where a `+=` racing the gate's would lose hits
    logged_hits: list[None] = field(default_factory=list)
    places: tuple[CodeLocation, ...] = ()
    inferior: int = 1  # whose program the places are in (gdb's program space, `inf N`)
    spec: str = ""  # what the engine is given (a bare line made file:line)
    old_value: str | None = None  # watchpoints: the value at the last stop
    # The expression a watchpoint's value is shown by, where it is not what is watched
    # (`watch -location` of a bit-field: its bits, out of the bytes watched)
    shown_spec: str = ""
    dead: bool = False
    catch: catches.CatchSpec | None = None  # a catchpoint's event (catchpoints.py)
    dprintf: str | None = None  # a dprintf's `"FORMAT",ARGS` (what its printf line prints)
    dprintf_line: str = ""  # its command, as the dprintf settings made it (dprintf.command_line)
    # Addresses of the locations its condition names something unknown at (gdb's
    # disabled_by_cond): they never stop, and show enabled="N".
    cond_disabled: frozenset[int] = frozenset()
    loc_disabled: frozenset[int] = frozenset()  # addresses of the locations disabled by `disable N.M`
    passcount: int = 0  # a tracepoint's (0: none)
    hardware: bool = False  # hbreak's: gdb's "hw breakpoint" (debug_registers.py)
    software: bool = False  # a watchpoint in no debug register: gdb's "watchpoint" (single steps)
    # A watchpoint's frame (function, CFA) when its expression reads locals: gdb reads it
    # there (watchpoint_frame), wherever the trap comes. The function whose locals its
    # condition reads: tested in the innermost frame of it (cond_exp_valid_block).
    watch_frame: tuple[str | None, int | None] | None = None
    cond_function: str | None = None
    # The keywords after a console breakpoint's location made pending (`if x > 3`): gdb
    # keeps them unparsed until the location resolves, shown after it.
    pending_extra: str | None = None
    # gdb's disp_disable (`enable once`, `enable count N`): disabled once `enable_count`
    # stops have counted down.
    disable_after: bool = False
    enable_count: int = 0
    # Pending again since its library was unloaded: gdb keeps the location (shlib_disabled),
    # whose thread group it still shows.
    unloaded: bool = False
    # Its places in the libraries a detach forgot (gdb's shlib_disabled locations, kept
    # until the next re-set): shown <PENDING> with the spec.
    shlib_disabled: frozenset[int] = frozenset()

    @property
    def value_expression(self) -> str:
        """What a watchpoint's value is read by (old and new values, conditions aside)."""
        return self.shown_spec or self.spec or self.location

    @property
    def ignore(self) -> int:
        """gdb's ignore count (the core's `ignore_count`)."""
        return self.ignore_count

    @ignore.setter
    def ignore(self, count: int) -> None:
        self.ignore_count = count

    @property
    def engine_id(self) -> int | None:
        """The engine's watchpoint of a watch, else its location breakpoint."""
        return self.watch_id if self.is_watch else self.location_id

    @engine_id.setter
    def engine_id(self, ident: int | None) -> None:
        if self.is_watch:
            self.watch_id = ident
        else:
            self.location_id = ident

    @property
    def located_apart(self) -> bool:
        """gdb lists its locations one by one: several, or one not plainly enabled."""
        return not self.is_watch and (len(self.places) > 1 or bool(self.cond_disabled | self.loc_disabled))

    def location_state(self, address: int) -> str:
        """A location's enabled field (MI): N where the condition fails, n disabled by hand."""
        return "N" if address in self.cond_disabled else "n" if address in self.loc_disabled else "y"

    @property
    def disposition(self) -> str:
        return "del" if self.temporary else "dis" if self.disable_after else "keep"

    @property
    def is_watch(self) -> bool:
        return self.gdb_type not in (*_LOCATED, catches.CATCHPOINT)

    @property
    def shown_type(self) -> str:
        """gdb's Type column (and MI's type field)."""
        return "hw breakpoint" if self.hardware else "watchpoint" if self.software else self.gdb_type

    @property
    def watch_label(self) -> str:
        """How the console names a watchpoint (its mention, each trigger)."""
        if self.software:
            return "Watchpoint"
        return {"hw watchpoint": "Hardware watchpoint", "read watchpoint": "Hardware read watchpoint",
                "acc watchpoint": "Hardware access (read/write) watchpoint"}[self.gdb_type]  # fmt: skip

    @property
    def is_resolver(self) -> bool:
        return self.gdb_type == IFUNC_RESOLVER

    @property
    def pending(self) -> bool:
        return self.gdb_type in _LOCATED and not self.places

    @property
    def shown_pending(self) -> bool:
        """<PENDING> in the table: no place, or its one place forgotten by a detach."""
        return self.pending or (len(self.places) == 1 and not self.located_apart and self.places[0].address in self.shlib_disabled)

    @property
    def bound_disabled(self) -> bool:
        """Bound in the engine while disabled, untrapped: its places follow starts and library
        loads as gdb's breakpoint_re_set re-sets disabled breakpoints too."""
        return self.gdb_type in (BREAKPOINT, IFUNC_RESOLVER) and self.catch is None

    @property
    def has_address(self) -> bool:
        """gdb's table shows 64-bit addresses once a breakpoint has one (a tracepoint's
        location is of no kind gdb counts; a pending one has no location yet)."""
        return not self.pending and self.gdb_type != TRACEPOINT and (self.catch is None or self.catch.has_location)


def resolver_type(bp: MiBreakpoint) -> None:
    """gdb's set_breakpoint_location_function: a breakpoint (not a dprintf, tracepoint or
    hardware one) whose only location is an ifunc's unresolved resolver becomes of type
    bp_gnu_ifunc_resolver, for good."""
    if bp.gdb_type == BREAKPOINT and len(bp.places) == 1 and bp.places[0].ifunc:
        bp.gdb_type = IFUNC_RESOLVER


def place_items(
    place: CodeLocation, file_name: Callable[[str, str | None], str], fullname: Callable[[str, str | None], str],
    symbolic: Callable[[CodeLocation], str],
) -> list[tuple[str, Value]]:
    """A place's fields in MI: gdb's print_breakpoint_location, the address's symbol alone
    where there is no line info (no `at` where no symbol has it, as an empty stream)."""
    if place.source is None:
        return [("at", symbolic(place))] if place.function is not None else []
    items: list[tuple[str, Value]] = [("func", place.function)] if place.function else []
    return items + [("file", file_name(place.source.path, place.source.symtab)), ("fullname", fullname(place.source.path, place.source.symtab_fullname)),
                    ("line", str(place.source.line))]
