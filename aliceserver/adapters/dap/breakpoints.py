"""Breakpoint requests: source, function, instruction, data, exception filters, locations.

Each set* request replaces every breakpoint of its kind (of that source, for
setBreakpoints). A breakpoint asked for again unchanged keeps its id and its engine
breakpoint. Problems with one breakpoint (a bad condition, no code at the line) make that
breakpoint unverified with a message; the request itself succeeds (VS Code skips the rest
of its configuration when one fails).
"""

from __future__ import annotations

import os
import signal as signal_module
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from aliceserver.adapters.dap.capabilities import EXCEPTION_FILTERS, exception_filters
from aliceserver.adapters.dap.handles import ScopeRef, TextRef, ValueRef
from aliceserver.adapters.dap.messages import Arguments, InvalidArguments, JsonObject
from aliceserver.adapters.dap.shapes import (
    child_expression,
    memory_reference,
    parse_memory_reference,
    source_json,
)
from aliceserver.debuggers.base import BreakpointCondition
from aliceserver.debuggers.catch_events import WatchGate
from aliceserver.debuggers.events import Stopped, StopReason
from aliceserver.debuggers.model import (
    BreakpointInfo,
    CodeLocation,
    LocationBreakpointInfo,
    SignalPolicy,
    VariableScope,
    WatchKind,
    WatchScope,
)
from aliceserver.errors import AliceError
from aliceserver.session.breakpoints import (
    BreakpointKind,
    BreakpointNumbers,
    UserBreakpoint,
    UserBreakpoints,
)

if TYPE_CHECKING:
    from aliceserver.adapters.dap.registry import Registry
    from aliceserver.adapters.dap.session import DapSession

_MAX_LOCATION_LINES = 500  # breakpointLocations looks at most this many lines per request
# Signals the `signals` filter leaves alone: crashes always stop; these cannot be caught.
_ALWAYS = frozenset({
    signal_module.SIGSEGV, signal_module.SIGBUS, signal_module.SIGFPE, signal_module.SIGILL,
    signal_module.SIGABRT, signal_module.SIGTRAP, signal_module.SIGKILL, signal_module.SIGSTOP,
})  # fmt: skip


SOURCE, FUNCTION = BreakpointKind.SOURCE_LINE, BreakpointKind.FUNCTION
INSTRUCTION, DATA = BreakpointKind.ADDRESS, BreakpointKind.DATA_WATCH


@dataclass(eq=False, slots=True)
class DapBreakpoint(UserBreakpoint):
    """The session core's record of a client's breakpoint, with what DAP shows of it."""

    key: tuple[Any, ...] = ()  # what the client asked: unchanged on a new request -> reused
    bound: LocationBreakpointInfo | None = None  # the engine's location breakpoint
    message: str | None = None  # why it is not verified
    line: int | None = None  # requested line (source breakpoints)
    path: str | None = None
    address: int | None = None  # instruction / data breakpoints
    reported: bool | None = None  # the verified state the client last heard
    judge: BreakpointCondition | None = None  # a data breakpoint's condition and hit condition

    @property
    def dap_id(self) -> int:
        return self.number

    @property
    def verified(self) -> bool:
        if self.kind is DATA:
            return self.watch_id is not None
        return bool(self.places)

    @property
    def places(self) -> tuple[CodeLocation, ...]:
        """Where it is bound, but for a library function's PLT stub in the program: it
        stands in (as in gdb) until the library loads and the breakpoint moves to the
        function, so the client hears it pending till then, as lldb-vscode says."""
        if self.bound is None:
            return ()
        asked_for_stub = self.kind is FUNCTION and bool(self.key) and str(self.key[0]).endswith("@plt")
        return tuple(place for place in self.bound.locations
                     if asked_for_stub or not (place.function or "").endswith("@plt"))  # fmt: skip

    def bind(self, info: LocationBreakpointInfo) -> None:
        self.bound, self.location_id, self.address_ids = info, info.id, info.breakpoint_ids


@dataclass(slots=True)
class BreakpointBook:
    """Every breakpoint the client set (the session core's records, numbered in the count
    the debug console's breakpoints share), by kind in the order of its requests."""

    records: UserBreakpoints[DapBreakpoint] = field(default_factory=UserBreakpoints)
    sources: dict[str, list[DapBreakpoint]] = field(default_factory=dict)
    functions: list[DapBreakpoint] = field(default_factory=list)
    instructions: list[DapBreakpoint] = field(default_factory=list)
    data: list[DapBreakpoint] = field(default_factory=list)
    data_gate_installed: bool = False
    quiet_signals: dict[int, SignalPolicy] = field(default_factory=dict)  # saved policies

    @property
    def numbers(self) -> BreakpointNumbers:
        return self.records.numbers

    def new(self, kind: BreakpointKind, asked: str, key: tuple[Any, ...], **shown: Any) -> DapBreakpoint:
        """A new breakpoint of the client's (`asked`: its location or data id), numbered."""
        conditions = key[2:4] if kind is DATA else key[1:3]
        condition, hit = (list(conditions) + [None, None])[:2]
        return self.records.add(DapBreakpoint(
            self.numbers.take(), kind, asked, condition or None, hit or None,
            log_message=key[3] if kind is SOURCE else None, key=key, **shown,
        ))  # fmt: skip

    def every(self) -> list[DapBreakpoint]:
        return self._all()

    def _all(self) -> list[DapBreakpoint]:
        found = [bp for bps in self.sources.values() for bp in bps]
        return found + self.functions + self.instructions + self.data

    def take_out(self, dap_id: int) -> DapBreakpoint | None:
        """Remove a breakpoint from the book (the console deleted it); None if unknown."""
        found = self.records.remove(dap_id)
        if found is None:
            return None
        for path, bps in list(self.sources.items()):
            if found in bps:
                bps.remove(found)
                if not bps:
                    del self.sources[path]
        for bps in (self.functions, self.instructions, self.data):
            if found in bps:
                bps.remove(found)
        return found

    def _owner_of_address(self, address_id: int) -> DapBreakpoint | None:
        return next(iter(self.records.owners((address_id,))), None)

    def hit(self, engine_ids: tuple[int, ...], reason: StopReason) -> tuple[list[int], str | None]:
        """DAP ids of the breakpoints a stop hit, and the stop reason their kind implies."""
        owners = self.records.count_hits(engine_ids, watch=reason is StopReason.WATCHPOINT)
        kinds = {bp.kind for bp in owners}
        kind = None
        if kinds == {FUNCTION}:
            kind = "function breakpoint"
        elif kinds == {INSTRUCTION}:
            kind = "instruction breakpoint"
        return [bp.dap_id for bp in owners], kind

    def drop_watches(self, engine_ids: tuple[int, ...]) -> list[DapBreakpoint]:
        """The data breakpoints the engine deleted (their frame was left), taken out of the
        book as gdb deletes them: the client hears a `removed` breakpoint event."""
        gone = [bp for bp in self.data if bp.watch_id is not None and bp.watch_id in engine_ids]
        self.data = [bp for bp in self.data if bp not in gone]
        for bp in gone:
            self.records.discard(bp)
        return gone

    def location_changed(
        self, session: DapSession, info: LocationBreakpointInfo
    ) -> JsonObject | None:
        for bp in self._all():
            if bp.bound is not None and bp.bound.id == info.id:
                bp.bind(info)
                body = breakpoint_json(session, bp)
                bp.reported = bp.verified
                return body
        return None

    def address_changed(
        self, session: DapSession, info: BreakpointInfo, removed: bool
    ) -> JsonObject | None:
        owner = self._owner_of_address(info.id)
        if owner is None or removed:
            return None
        verified = owner.verified and info.inserted
        if verified == owner.reported:
            return None
        owner.reported = verified
        body = breakpoint_json(session, owner)
        body["verified"] = verified
        if not info.inserted:
            body["message"] = (
                "The breakpoint's code is not loaded (the program replaced its image)."
            )
        return body


def breakpoint_json(session: DapSession, bp: DapBreakpoint) -> JsonObject:
    body: JsonObject = {"id": bp.dap_id, "verified": bp.verified}
    state = session.state
    places = bp.places
    if places:
        first = places[0]
        if first.source is not None:
            body["line"] = state.line_out(first.source.line)
            source = source_json(first.source, session.debugger.source_paths)
            if source is not None:
                body["source"] = source
        body["instructionReference"] = memory_reference(first.address)
    elif bp.line is not None:
        body["line"] = state.line_out(bp.line)
    if bp.kind is SOURCE and bp.path is not None and "source" not in body:
        body["source"] = {"name": os.path.basename(bp.path), "path": bp.path}
    if bp.address is not None and "instructionReference" not in body:
        body["instructionReference"] = memory_reference(bp.address)
    if not bp.verified:
        body["message"] = bp.message or _pending_message(session, bp)
    elif bp.condition or bp.hit_condition:  # why the engine keeps a trap (no jump patch)
        refused = [info.note for info in session.debugger.breakpoints()
                   if info.id in bp.address_ids and info.note.startswith("patch refused")]  # fmt: skip
        if refused:
            body["message"] = refused[0]
    return body


def _pending_message(session: DapSession, bp: DapBreakpoint) -> str:
    if session.debugger.process is None:
        return "Pending: the program has not started yet."
    if bp.kind is SOURCE:
        name = os.path.basename(bp.path or "")
        return (
            f"No code at line {bp.line} of {name} in the loaded program "
            "(the breakpoint binds if a library with that code loads)."
        )
    if bp.kind is FUNCTION and bp.bound is not None and bp.bound.locations:  # only at PLT stubs
        return f"Pending: {bp.bound.location} is in a shared library not loaded yet (the breakpoint binds when it loads)."
    if bp.kind is FUNCTION:
        return (
            "No such function in the loaded program (the breakpoint binds if a library defines it)."
        )
    return "No code at that address."


def _install(
    session: DapSession, bp: DapBreakpoint, spec: str, options: Arguments
) -> DapBreakpoint:
    debugger = session.debugger
    condition = options.opt_string("condition") or None
    hit = options.opt_string("hitCondition") or None
    log_message = options.opt_string("logMessage") if bp.kind is SOURCE else None
    try:
        test = None
        if condition or hit or log_message is not None:
            test = debugger.breakpoint_condition(condition, hit, log_message)
        bp.bind(debugger.insert_location_breakpoint(spec, condition=test))
    except AliceError as error:
        bp.message = str(error)
    bp.reported = bp.verified
    return bp


def _replace_all(
    session: DapSession,
    old: list[DapBreakpoint],
    wanted: list[tuple[tuple[Any, ...], Any]],
    make: Any,
) -> list[DapBreakpoint]:
    """Keep the breakpoints asked for again unchanged, make the new ones, remove the rest."""
    spare = list(old)
    result: list[DapBreakpoint] = []
    for key, item in wanted:
        same = next((bp for bp in spare if bp.key == key), None)
        if same is not None:
            spare.remove(same)
            result.append(same)
        else:
            result.append(make(key, item))
    for bp in spare:
        session.breakpoints.records.discard(bp)
        _remove(session, bp)
    return result


def _remove(session: DapSession, bp: DapBreakpoint) -> None:
    try:
        if bp.bound is not None:
            session.debugger.remove_location_breakpoint(bp.bound.id)
        if bp.watch_id is not None:
            session.debugger.remove_watchpoint(bp.watch_id)
    except AliceError:
        pass  # gone with the process already


def delete(session: DapSession, dap_id: int) -> bool:
    """Remove one breakpoint (the debug console's `delete N`); False when unknown."""
    bp = session.breakpoints.take_out(dap_id)
    if bp is None:
        return False
    _remove(session, bp)
    return True


def _conditions(item: Arguments) -> tuple[Any, ...]:
    return (
        item.opt_string("condition"),
        item.opt_string("hitCondition"),
        item.opt_string("logMessage"),
    )


# --- requests ------------------------------------------------------------------------------
def set_breakpoints(session: DapSession, args: Arguments) -> JsonObject:
    source = args.object("source")
    path = source.opt_path("path")
    if not path:
        if source.opt_integer("sourceReference"):
            raise InvalidArguments(
                "setBreakpoints: sources without a path have no code to break in"
            )
        raise InvalidArguments("setBreakpoints: 'source.path' is required")
    path = os.path.normpath(path)
    state = session.state
    if args.has("breakpoints"):
        items = args.objects("breakpoints")
        wanted = [((state.line_in(i.integer("line")), *_conditions(i)), i) for i in items]
    else:  # legacy `lines`, only when `breakpoints` is absent (old clients sent a string)
        raw = args.raw.get("lines")
        lines = raw if isinstance(raw, list) and all(isinstance(n, int) for n in raw) else []
        empty = Arguments("setBreakpoints", {})
        wanted = [((state.line_in(n), None, None, None), empty) for n in lines]
    if any(not 0 <= key[0] < 2**31 for key, _ in wanted):  # clients keep lines in int32
        raise InvalidArguments("setBreakpoints: a 'line' is out of range")

    def make(key: tuple[Any, ...], item: Arguments) -> DapBreakpoint:
        bp = session.breakpoints.new(SOURCE, f"{path}:{key[0]}", key, line=key[0], path=path)
        return _install(session, bp, f"{path}:{key[0]}", item)

    book = session.breakpoints
    book.sources[path] = _replace_all(session, book.sources.get(path, []), wanted, make)
    if not book.sources[path]:
        del book.sources[path]
    return {"breakpoints": [breakpoint_json(session, bp) for bp in book.sources.get(path, [])]}


def set_function_breakpoints(session: DapSession, args: Arguments) -> JsonObject:
    items = args.objects("breakpoints", required=True)
    wanted = [((i.string("name").strip(), *_conditions(i)[:2]), i) for i in items]

    def make(key: tuple[Any, ...], item: Arguments) -> DapBreakpoint:
        bp = session.breakpoints.new(FUNCTION, key[0], key)
        if not key[0]:
            bp.message = "A function breakpoint needs a name."
            return bp
        return _install(session, bp, key[0], item)

    book = session.breakpoints
    book.functions = _replace_all(session, book.functions, wanted, make)
    return {"breakpoints": [breakpoint_json(session, bp) for bp in book.functions]}


def set_instruction_breakpoints(session: DapSession, args: Arguments) -> JsonObject:
    items = args.objects("breakpoints", required=True)
    wanted = []
    for item in items:
        address = parse_memory_reference(
            item.string("instructionReference"), "instructionReference"
        )
        address += item.opt_integer("offset", 0) or 0
        wanted.append(((address, *_conditions(item)[:2]), item))

    def make(key: tuple[Any, ...], item: Arguments) -> DapBreakpoint:
        bp = session.breakpoints.new(INSTRUCTION, f"*{key[0]:#x}", key, address=key[0])
        return _install(session, bp, f"*{key[0]:#x}", item)

    book = session.breakpoints
    book.instructions = _replace_all(session, book.instructions, wanted, make)
    return {"breakpoints": [breakpoint_json(session, bp) for bp in book.instructions]}


def data_breakpoint_info(session: DapSession, args: Arguments) -> JsonObject:
    name = args.string("name")
    expression: str | None = name
    frame = None
    if args.has("variablesReference"):
        container = session.handles.variable(args.integer("variablesReference"))
        if isinstance(container, ScopeRef):
            frame = container.frame
            if container.scope is VariableScope.REGISTERS:
                expression = None
        elif isinstance(container, ValueRef):
            frame = container.frame
            expression = (
                child_expression(container.expression, container.pointer, name)
                if container.expression else None
            )  # fmt: skip
        elif isinstance(container, TextRef):
            expression = None
    elif args.has("frameId"):
        frame = session.handles.frame(args.integer("frameId"))
    if expression is None:
        return {"dataId": None, "description": f"{name} cannot be watched: it is not in memory"}
    tid = frame.thread_id if frame else None
    level = frame.level if frame else 0
    try:
        value = session.debugger.evaluate(expression, tid, level)
        size = int(session.debugger.evaluate(f"sizeof({expression})", tid, level).value, 0)
    except (AliceError, ValueError) as error:
        return {"dataId": None, "description": f"{name} cannot be watched: {error}"}
    if value.address is None:
        return {"dataId": None, "description": f"{name} cannot be watched: it is not in memory"}
    try:  # a watch that reads a frame's locals is that frame's: it is removed when the frame returns
        scope = session.debugger.watch_scope(expression, tid, level)
    except AliceError as error:
        return {"dataId": None, "description": f"{name} cannot be watched: {error}"}
    if not 0 < size <= _WATCHED_BYTES:  # (an unaligned one may need a register more: told when set)
        return {
            "dataId": None,
            "description": f"{name} cannot be watched: the hardware watchpoints cover {_WATCHED_BYTES} "
            f"bytes at most, and it has {size} at {value.address:#x}",
        }
    in_frame = f"@{scope.thread_id}/{scope.frame_cfa:#x}" if scope is not None else ""
    return {
        "dataId": f"{value.address:#x}/{size}{in_frame}",
        "description": f"{expression} ({size} bytes at {value.address:#x}{', while its frame lives' if scope else ''})",
        "accessTypes": ["write", "readWrite"],
        "canPersist": False,
    }


_WATCHED_BYTES = 32  # x86-64's four debug registers of 8 bytes each, one watch split over them


def set_data_breakpoints(session: DapSession, args: Arguments) -> JsonObject:
    items = args.objects("breakpoints", required=True)
    wanted = [
        ((i.string("dataId"), i.opt_string("accessType") or "write", *_conditions(i)[:2]), i)
        for i in items
    ]

    def make(key: tuple[Any, ...], item: Arguments) -> DapBreakpoint:
        data_id, access, condition, hit = key
        bp = session.breakpoints.new(DATA, data_id, key)
        place, _, frame = data_id.partition("@")
        address_text, _, size_text = place.partition("/")
        thread_text, _, cfa_text = frame.partition("/")
        try:
            bp.address, size = int(address_text, 0), int(size_text)
            scope = WatchScope(int(thread_text), int(cfa_text, 0)) if frame else None
        except ValueError:
            bp.message = f"Not a data breakpoint id from dataBreakpointInfo: {data_id!r}"
            return bp
        if access == "read":
            bp.message = "x86 cannot watch reads alone: use 'readWrite'."
            return bp
        try:
            if condition or hit:
                bp.judge = _data_judge(session, condition, hit)
            kind = WatchKind.READ_WRITE if access == "readWrite" else WatchKind.WRITE
            bp.watch_id = session.debugger.insert_watchpoint(bp.address, size, kind, scope).id
        except AliceError as error:
            bp.message = str(error)
        return bp

    book = session.breakpoints
    book.data = _replace_all(session, book.data, wanted, make)
    return {"breakpoints": [breakpoint_json(session, bp) for bp in book.data]}


def _data_judge(session: DapSession, condition: str | None, hit: str | None) -> BreakpointCondition:
    """A data breakpoint's condition and hit condition, judged by the engine at each trap
    (a `next` under way goes on past a trap they refuse); the gate put in once."""
    debugger = session.debugger
    if not isinstance(debugger, WatchGate):
        raise AliceError("Conditions on data breakpoints are not supported by this debugger.")
    judge = debugger.breakpoint_condition(condition or None, hit or None)  # a typo: refused now
    book = session.breakpoints
    if not book.data_gate_installed:
        debugger.set_watch_gate(lambda stop: _data_trap_stops(book, stop), owner="dap")
        book.data_gate_installed = True
    return judge


def _data_trap_stops(book: BreakpointBook, stop: Stopped) -> bool:
    """On the engine's thread: whether a watch trap stops for the client's data
    breakpoint (its condition in the trapping thread's frame, then its hit count); True
    for a trap that is not one of theirs."""
    for bp in list(book.data):
        if bp.watch_id is not None and bp.watch_id in stop.breakpoint_ids and bp.judge is not None:
            return bp.judge(stop.thread_id)
    return True


def set_exception_breakpoints(session: DapSession, args: Arguments) -> JsonObject:
    chosen = args.strings("filters")
    options = args.objects("filterOptions")
    chosen += [option.string("filterId") for option in options]
    debugger = session.debugger
    results: list[JsonObject] = []
    for name in chosen:
        if name in EXCEPTION_FILTERS:
            results.append({"verified": True})
        else:
            results.append({"verified": False, "message": f"unknown exception filter {name!r}"})
    for name, (_, _, _, kind) in EXCEPTION_FILTERS.items():
        if kind is not None:
            debugger.set_catchpoint(kind, name in chosen)
    _signals_stop(session, "signals" in chosen)
    return {"breakpoints": results}


def _signals_stop(session: DapSession, stop: bool) -> None:
    """With the `signals` filter off, ordinary signals pass without stopping (as gdb's
    `handle SIG nostop`); on again restores the policies they had."""
    book, debugger = session.breakpoints, session.debugger
    if stop:
        for signo, policy in book.quiet_signals.items():
            debugger.set_signal_policy(signo, policy)
        book.quiet_signals.clear()
        return
    for signo in range(1, 65):
        if signo in _ALWAYS or signo in book.quiet_signals:
            continue
        policy = debugger.signal_policy(signo)
        if policy.stop:
            book.quiet_signals[signo] = policy
            debugger.set_signal_policy(signo, replace(policy, stop=False))


def breakpoint_locations(session: DapSession, args: Arguments) -> JsonObject:
    path = args.object("source").opt_path("path")
    state = session.state
    line = state.line_in(args.integer("line"))
    end = state.line_in(args.opt_integer("endLine") or state.line_out(line))
    if not path or session.debugger.process is None:
        return {"breakpoints": []}
    found: list[JsonObject] = []
    for number in range(line, min(end, line + _MAX_LOCATION_LINES - 1) + 1):
        try:
            places = session.debugger.resolve_location(f"{path}:{number}")
        except AliceError:
            continue
        if any(p.source is not None and p.source.line == number for p in places):
            found.append({"line": state.line_out(number)})
    return {"breakpoints": found}


def register(registry: Registry) -> None:
    registry.add("setBreakpoints", set_breakpoints)
    registry.add("setFunctionBreakpoints", set_function_breakpoints)
    registry.add("setInstructionBreakpoints", set_instruction_breakpoints)
    registry.add("setExceptionBreakpoints", set_exception_breakpoints)
    registry.add("dataBreakpointInfo", data_breakpoint_info, show_user=False)
    registry.add("setDataBreakpoints", set_data_breakpoints)
    registry.add("breakpointLocations", breakpoint_locations, show_user=False)
    # What the breakpoint requests honour in their arguments.
    registry.declare("supportsConditionalBreakpoints", True)
    registry.declare("supportsHitConditionalBreakpoints", True)
    registry.declare("supportsLogPoints", True)
    registry.declare("exceptionBreakpointFilters", exception_filters())
