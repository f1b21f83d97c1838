"""Breakpoint tools: debug_breakpoint (add/remove/list) and debug_watch."""

from __future__ import annotations

import os
from typing import Any

from aliceserver.adapters.agent.common import (
    FRAME,
    SESSION,
    THREAD,
    ToolEnv,
    frame_of,
    no_location,
    require_location,
    thread_of,
)
from aliceserver.adapters.agent.errors import ErrorCode, ToolError, bad_argument
from aliceserver.adapters.agent.registry import Args, Param, ToolRegistry, ToolSpec
from aliceserver.adapters.agent.session import DebugSession, WatchRecord
from aliceserver.debuggers.model import CodeLocation, LocationBreakpointInfo, WatchKind
from aliceserver.session.breakpoints import BreakpointKind, UserBreakpoint, kind_of_spec

_ACCESS = {"write": WatchKind.WRITE, "read_write": WatchKind.READ_WRITE}


def _place(location: CodeLocation) -> str:
    where = location.function or "??"
    if location.source is not None:
        where += f" at {os.path.basename(location.source.path)}:{location.source.line}"
    return f"{where} ({location.address:#x})"


def _describe(session: DebugSession, info: LocationBreakpointInfo, number: int) -> dict[str, Any]:
    """Breakpoint `number` (the user's: debug_breakpoint's or the console's) as listed."""
    record = session.breakpoints.by_location_id(info.id)
    hits = sum(bp.hit_count for bp in session.debugger.breakpoints() if bp.id in info.breakpoint_ids)
    entry: dict[str, Any] = {"id": number, "location": info.location}
    entry["resolved"] = [_place(loc) for loc in info.locations]
    if info.pending:
        entry["pending"] = (
            "matches no code yet: binds if a library defining it loads; check the spelling"
        )
    entry["hits"] = hits
    disabled = record is not None and not record.enabled
    if not info.enabled or disabled:
        entry["enabled"] = False
    if record is not None:
        shown = {"condition": record.condition, "hit_count": record.hit_condition, "log_message": record.log_message}
        entry.update((key, value) for key, value in shown.items() if value is not None)
    if info.temporary:
        entry["temporary"] = True
    return entry


def _hit_condition(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return f">= {value}"  # "stop from the Nth hit on", like DAP's plain number
    return str(value)


def add_breakpoint(
    env: ToolEnv,
    session: DebugSession,
    location: str,
    *,
    condition: str | None = None,
    hit_count: str | None = None,
    log_message: str | None = None,
    temporary: bool = False,
    number: int | None = None,
) -> dict[str, Any]:
    """Insert one location breakpoint (numbered `number`, as before a restart, else the
    session's next); its description for the reply."""
    session.require_process()
    debugger = session.debugger
    policy = None
    if condition or hit_count or log_message is not None:
        policy = debugger.breakpoint_condition(condition or None, hit_count, log_message)
    info = debugger.insert_location_breakpoint(location, condition=policy, temporary=temporary)
    if info.pending and not _could_load_later(session, location):
        debugger.remove_location_breakpoint(info.id)
        raise no_location(location)
    record = session.breakpoints.add(UserBreakpoint(
        number if number is not None else session.breakpoints.numbers.take(), kind_of_spec(location),
        location, condition, hit_count, log_message=log_message, temporary=temporary,
        location_id=info.id, address_ids=info.breakpoint_ids,
    ))  # fmt: skip
    return _describe(session, info, record.number)


def _could_load_later(session: DebugSession, location: str) -> bool:
    # A function may live in a library that is not loaded yet (a pending breakpoint, as in
    # gdb); a file:line or an address in the program itself cannot.
    text = location.lstrip("*")
    return ":" not in text and not text[:1].isdigit()


def _engine_info(session: DebugSession, number: int) -> tuple[UserBreakpoint, LocationBreakpointInfo]:
    """debug_breakpoint's breakpoint `number` and the engine's; the console's are its own."""
    record = session.breakpoints.get(number)
    if record is None and session.console_breakpoint(number) is not None:
        raise ToolError(ErrorCode.BAD_ARGUMENT, f"breakpoint {number} was set in debug_console",
                        f"debug_console command='enable {number}', 'disable {number}' or 'delete {number}'")  # fmt: skip
    if record is not None:
        for info in session.debugger.location_breakpoints():
            if info.id == record.location_id:
                return record, info
    raise ToolError(ErrorCode.NO_BREAKPOINT, f"no breakpoint {number}", "debug_breakpoint action=list")


def set_enabled(session: DebugSession, ident: int, enabled: bool) -> LocationBreakpointInfo:
    """Enable or disable every address breakpoint a location breakpoint owns."""
    record, info = _engine_info(session, ident)
    for owned in info.breakpoint_ids:
        session.debugger.enable_breakpoint(owned, enabled)
    record.enabled = enabled
    return info


def _listed(session: DebugSession) -> list[dict[str, Any]]:
    """The user's location breakpoints (debug_breakpoint's and the console's) by number."""
    found = []
    for info in session.debugger.location_breakpoints():
        number = session.breakpoint_number(info.id)
        if number is not None:
            found.append(_describe(session, info, number))
    return sorted(found, key=lambda entry: int(entry["id"]))


def _remove(session: DebugSession, ident: int) -> None:
    made_in_console = session.console_breakpoint(ident)
    if made_in_console is not None and session.console is not None:
        session.console.session.breakpoints.delete(made_in_console)
        return
    record, info = _engine_info(session, ident)
    session.debugger.remove_location_breakpoint(info.id)
    session.breakpoints.discard(record)


def _breakpoint(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    action = args.text("action") or "add"
    with session.lock:
        if action == "list":
            return {"session": session.id, "breakpoints": _listed(session)}
        if action == "remove":
            ident = args.integer("id")
            if ident is None:
                raise bad_argument("remove needs the breakpoint's id", "debug_breakpoint action=list")
            _remove(session, ident)
            return {"session": session.id, "removed": ident}
        if action in ("enable", "disable"):
            ident = args.integer("id")
            if ident is None:
                raise bad_argument(f"{action} needs the breakpoint's id", "debug_breakpoint action=list")
            info = set_enabled(session, ident, action == "enable")
            return {"session": session.id, "breakpoint": _describe(session, info, ident)}
        location = require_location(args.text("location"))
        raw_hits = args.integer("hit_count") if args.integer("hit_count") is not None else args.text("hit_condition")
        entry = add_breakpoint(
            env,
            session,
            location,
            condition=args.text("condition"),
            hit_count=_hit_condition(raw_hits),
            log_message=args.text("log_message"),
            temporary=args.flag("temporary"),
        )
        return {"session": session.id, "breakpoint": entry}


def _watch(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    action = args.text("action") or "add"
    debugger = session.debugger
    with session.lock:
        if action == "list":
            return {"session": session.id, "watchpoints": [_watch_entry(session, w) for w in session.watches]}
        if action == "remove":
            ident = args.integer("id")
            watch = session.watches.get(ident) if ident is not None else None
            if watch is None or watch.watch_id is None:
                raise ToolError(ErrorCode.NO_BREAKPOINT, f"no watchpoint {ident}", "debug_watch action=list")
            debugger.remove_watchpoint(watch.watch_id)
            session.watches.discard(watch)
            return {"session": session.id, "removed": ident}
        expression = (args.text("expression") or "").strip()
        if not expression:
            raise bad_argument("add needs an expression (a variable, a.b, p->field, arr[3], *p)")
        session.require_stopped()
        thread, level = thread_of(session, args), frame_of(session, args)
        value = debugger.evaluate(expression, thread, level)
        if value.error:
            raise ToolError(ErrorCode.BAD_EXPRESSION, f"{expression}: {value.value}", "watch something readable")
        access = args.text("access") or "write"
        info = debugger.watch_expression(expression, _ACCESS[access], thread, level)
        record = session.watches.add(WatchRecord(
            session.watches.numbers.take(), BreakpointKind.DATA_WATCH, expression, watch_id=info.id,
            access=access, type=value.type, last_value=value.value,
        ))  # fmt: skip
        return {"session": session.id, "watchpoint": _watch_entry(session, record)}


def _watch_entry(session: DebugSession, record: WatchRecord) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": record.number,
        "expression": record.expression,
        "access": record.access,
        "type": record.type,
        "value": record.last_value,
    }
    for info in session.debugger.watchpoints():
        if info.id == record.watch_id:
            entry["address"] = f"{info.address:#x}"
            entry["size"] = info.size
            entry["hits"] = info.hit_count
    return entry


def register(registry: ToolRegistry, env: ToolEnv) -> None:
    registry.add(ToolSpec(
        "debug_breakpoint",
        "Add, remove, enable, disable or list breakpoints. A location is file:line (prog.c:42), a function "
        "(main), or an address (0x401136). Options: a condition (C expression), a hit count "
        "(stop from the Nth hit, or '% 3', '== 5'), a log message instead of stopping "
        "('i = {i}', shown as output), temporary (removed at its first stop).",
        (
            SESSION,
            Param("action", "string", "add (default), remove, enable, disable or list.",
                  enum=("add", "remove", "enable", "disable", "list"), default="add"),
            Param("location", "string", "add: file:line, function, or address."),
            Param("condition", "string", "add: stop only when this C expression is true."),
            Param("hit_count", "integer", "add: stop from this hit on.", minimum=1),
            Param("hit_condition", "string", "add: a hit condition such as '== 5', '>= 3', '% 10'."),
            Param("log_message", "string", "add: print this (with {expr} replaced) and go on."),
            Param("temporary", "boolean", "add: delete it when it stops the program."),
            Param("id", "integer", "remove/enable/disable: the breakpoint's id."),
        ),
        lambda a: _breakpoint(env, a),
    ))
    registry.add(ToolSpec(
        "debug_watch",
        "Add, remove or list watchpoints: stop when an expression's memory is written (or, "
        "with access=read_write, read or written). The stop's context shows old and new "
        "values. Hardware: at most 4, each up to 8 bytes. A watch on a function's locals is "
        "deleted when that function returns (the stop says so), as in gdb.",
        (
            SESSION,
            Param("action", "string", "add (default), remove or list.",
                  enum=("add", "remove", "list"), default="add"),
            Param("expression", "string", "add: an lvalue: x, s.field, p->next, a[3], *p."),
            Param("access", "string", "add: write (default) or read_write.",
                  enum=tuple(_ACCESS), default="write"),
            Param("id", "integer", "remove: the watchpoint's id."),
            THREAD,
            FRAME,
        ),
        lambda a: _watch(env, a),
    ))
