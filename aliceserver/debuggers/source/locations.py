"""Locations (gdb's linespecs and `*EXPR`) and the breakpoints placed by location,
written once over the process interface: pending until their code loads, bound to an
address breakpoint of the backend at each place they resolve to, unbound when a library
goes."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from aliceserver.debuggers.base import BreakpointCondition
from aliceserver.debuggers.events import LocationBreakpointChanged
from aliceserver.debuggers.eventsource import EventSource
from aliceserver.debuggers.model import CodeLocation, LocationBreakpointInfo, Module, SourcePosition
from aliceserver.debuggers.source import linespec
from aliceserver.debuggers.source.evaluation import Expressions
from aliceserver.debuggers.source.frames import Frames
from aliceserver.debuggers.source.inlinestops import location_symbol
from aliceserver.debuggers.source.pcanswers import PcAnswers
from aliceserver.debuggers.source.services import AddressBreakpoints, EngineServices
from aliceserver.debuggers.source.sourcesymbols import SourceSymbols
from aliceserver.errors import AliceError, ProtocolError, TargetError

log = logging.getLogger(__name__)


class Locations:
    def __init__(
        self, engine: EngineServices, frames: Frames, expressions: Expressions, events: EventSource,
        breakpoints: AddressBreakpoints,
    ) -> None:  # fmt: skip
        self._engine = engine
        self._frames = frames
        self._expressions = expressions
        self._events = events
        self._breakpoints = breakpoints
        self._entries: dict[int, _LocationBreakpoint] = {}
        self._last_id = 0
        self._positions: PcAnswers[SourcePosition | None] = PcAnswers(lambda: self._source, engine.run_on_engine)
        frames.breakpoint_symbols = self.breakpoint_symbols  # which inlined calls a stop here hides

    @property
    def _source(self) -> SourceSymbols:
        return self._engine.source_symbols

    # --- locations ------------------------------------------------------------------
    def resolve_location(self, spec: str) -> list[CodeLocation]:
        return self._engine.run_on_engine(lambda: self.resolve(spec))

    def resolve(self, spec: str) -> list[CodeLocation]:
        """A location's places (on the tracer thread). gdb's `*EXPR` is the expression's
        value as an address, evaluated anew at each binding as gdb's breakpoint re-set:
        before `run` the program's link-time one, at the held copy's load address."""
        expression = linespec.address_expression(spec)
        if expression is None:
            read = self._engine.read_visible if self._engine.process is not None else None
            return self._source.resolve(spec, self._engine.program_only(), read)
        if not expression:
            raise ProtocolError("Argument required (expression to compute).")
        try:
            address = int(expression, 0)
        except ValueError:
            address = self._address_of(expression)
        if self._engine.hidden(address):  # before run: no symbol there for gdb
            return [CodeLocation(address, None, None, None)]
        return [self._source.address_place(self._engine.runtime_address(address))]

    def _address_of(self, expression: str) -> int:
        """`expression`'s value as an address: in the program held for its symbols at its
        link-time addresses (no registers), else in the first thread's innermost frame."""
        thread_id = None
        if self._engine.link_view() is None and self._engine.process is not None:
            try:
                thread_id = self._frames.default_thread(None)  # refused while it runs
            except AliceError:
                thread_id = None
        info = self._expressions.evaluate(expression, thread_id, calls=False)
        if info.error:
            raise ProtocolError(info.value)
        if info.value.startswith("(") and "0x" not in info.value:
            info = self._expressions.evaluate(expression, thread_id, fmt="x", calls=False)  # `print address off`
        return linespec.value_address(info.value, info.type, info.address)

    def source_position(self, address: int) -> SourcePosition | None:
        return self._positions.answer(address, lambda: self._source.position(address))  # pcanswers.py

    def source_files(self) -> list[str]:
        return self._engine.run_on_engine(self._source.source_files)

    def source_name(self, path: str) -> str:
        return self._engine.run_on_engine(lambda: self._source.source_name(path))

    # --- location breakpoints (pending until their code loads) ------------------------
    def insert_location_breakpoint(
        self,
        location: str,
        *,
        condition: BreakpointCondition | None = None,
        temporary: bool = False,
        enabled: bool = True,
    ) -> LocationBreakpointInfo:
        def go() -> LocationBreakpointInfo:
            places = None
            if self._engine.process is not None:
                places = self.resolve(location)  # a malformed spec is refused now
            self._last_id += 1
            entry = _LocationBreakpoint(self._last_id, location, condition, temporary, enabled)
            self._entries[entry.id] = entry
            if places is not None:
                self._bind(entry, places)
            return entry.info()

        return self._engine.run_on_engine(go)

    def _bind(self, entry: _LocationBreakpoint, places: list[CodeLocation] | None = None) -> bool:
        """Give `entry` an address breakpoint at each new place it resolves to (`places`:
        just resolved); a PLT stub it no longer resolves to (its library's function has
        loaded) goes, as gdb re-sets a breakpoint on a trampoline symbol to the function
        once there is one, and so does an ifunc's resolver once its target is known."""
        try:
            if places is None:
                places = self.resolve(entry.location)
        except AliceError as error:  # a `*EXPR` that cannot be evaluated now (a thread runs)
            log.info("breakpoint %d at %s kept where it was: %s", entry.id, entry.location, error)
            return False
        changed = False
        wanted = {place.address for place in places}
        for address, (bound, ident) in list(entry.bound.items()):
            if address not in wanted and (bound.ifunc or (bound.function or "").endswith("@plt")):
                del entry.bound[address]
                self._breakpoints.forget_address_breakpoint(ident)
                changed = True
        for place in places:
            if place.address in entry.bound:
                continue
            try:
                owned = self._breakpoints.insert_address_breakpoint(
                    place.address, entry.temporary, entry.enabled, entry.condition,
                    # Line-table rows and function entries start instructions; only a
                    # user's `*ADDRESS` needs disassembling to be sure.
                    at_instruction=not entry.location.lstrip().startswith("*"),
                )  # fmt: skip
            except TargetError as error:
                log.warning("breakpoint %d at %#x: %s", entry.id, place.address, error)
                continue
            entry.bound[place.address] = (place, owned.id)
            changed = True
        return changed

    def bind_all(self, new_image: bool = False) -> None:
        """Called on the tracer thread when code appears: at launch, exec and library loads."""
        for entry in self._entries.values():
            if new_image:  # exec replaced the program: old addresses mean nothing now
                for _, ident in entry.bound.values():
                    self._breakpoints.forget_address_breakpoint(ident)
                entry.bound.clear()
            if self._bind(entry) and not new_image:
                self._events.put(LocationBreakpointChanged(entry.info()))

    def unbind_module(self, module: Module, *, still_mapped: bool = False) -> None:
        """Called on the tracer thread when a library is unloaded: the places in it go (a
        breakpoint left with none is pending again, as gdb's), their traps with them, with
        nothing to restore in code no longer mapped. `still_mapped`: only the library's
        symbols went (`nosharedlibrary`), so its code gets its bytes back."""
        for entry in self._entries.values():
            gone = [address for address in entry.bound if module.low <= address < module.high]
            for address in gone:
                _, ident = entry.bound.pop(address)
                if not still_mapped:
                    self._breakpoints.code_unmapped(address)
                self._breakpoints.forget_address_breakpoint(ident)
            if gone:
                self._events.put(LocationBreakpointChanged(entry.info()))

    def breakpoint_symbols(self, breakpoint_ids: tuple[int, ...], pc: int) -> list[str | None]:
        """The symbols of the user breakpoint locations at `pc` among `breakpoint_ids`
        (inlinestops.location_symbol); None for a breakpoint no location spec owns."""
        found: list[str | None] = []
        for ident in breakpoint_ids:
            owner = next(((entry, place) for entry in self._entries.values()
                          for place, owned in entry.bound.values() if owned == ident), None)  # fmt: skip
            if owner is None or owner[1].address != pc or owner[1].source is None:
                found.append(None)  # (a minimal symbol's place, as an ifunc resolver's: no symbol)
            else:
                found.append(location_symbol(owner[0].location, owner[1].function))
        return found

    def remove_location_breakpoint(self, location_breakpoint_id: int) -> None:
        def go() -> None:
            entry = self._entries.pop(location_breakpoint_id, None)
            if entry is None:
                raise TargetError(f"no location breakpoint number {location_breakpoint_id}")
            for _, ident in entry.bound.values():
                self._breakpoints.forget_address_breakpoint(ident)

        self._engine.run_on_engine(go)

    def enable_location_breakpoint(self, location_breakpoint_id: int, enabled: bool) -> None:
        """How its later places bind (trapped or not); the caller sets its bound ones'
        (enable_breakpoint: a location may be disabled on its own)."""

        def go() -> None:
            entry = self._entries.get(location_breakpoint_id)
            if entry is None:
                raise TargetError(f"no location breakpoint number {location_breakpoint_id}")
            entry.enabled = enabled

        self._engine.run_on_engine(go)

    def location_breakpoints(self) -> list[LocationBreakpointInfo]:
        return self._engine.run_on_engine(lambda: [entry.info() for entry in self._entries.values()])


@dataclass(slots=True)
class _LocationBreakpoint:
    id: int
    location: str
    condition: BreakpointCondition | None
    temporary: bool
    enabled: bool
    bound: dict[int, tuple[CodeLocation, int]] = field(default_factory=dict)  # address -> (place, id)

    def info(self) -> LocationBreakpointInfo:
        places = sorted(self.bound.values(), key=lambda pair: pair[0].address)
        return LocationBreakpointInfo(
            self.id, self.location, tuple(place for place, _ in places),
            tuple(ident for _, ident in places), self.enabled, self.temporary,
        )  # fmt: skip
