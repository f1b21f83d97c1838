"""Tracing tools: debug_trace (add/remove/status of traced function patterns) and
debug_query (structured queries over what was recorded).

The first `add` gives the session a TraceStore and a Tracer; the session feeds the tracer
its events and closes both when it ends.
"""

from __future__ import annotations

import os
from typing import Any

from aliceserver.adapters.agent.budget import Omissions, cut_value
from aliceserver.adapters.agent.common import SESSION, ToolEnv
from aliceserver.adapters.agent.errors import ErrorCode, ToolError, bad_argument
from aliceserver.adapters.agent.registry import Args, Param, ToolRegistry, ToolSpec
from aliceserver.adapters.agent.session import DebugSession
from aliceserver.errors import AliceError, ProtocolError
from aliceserver.tracing import KINDS, QueryFilters, Tracer, TraceStatus, TraceStore, query

DEFAULT_LIMIT = 50
MAX_LIMIT = 500
_PATTERN_HINT = (
    "patterns: a function-name glob (parse_*, ns::**), @file:GLOB (@file:parser.c) "
    "or @usercode (functions under the project root)"
)


def _tracer(env: ToolEnv, session: DebugSession, keep: bool | None) -> Tracer:
    tracer = session.tracer
    if tracer is not None:
        if keep is not None and session.trace_store is not None:
            session.trace_store.keep = keep
        return tracer
    store = TraceStore(session.id, env.trace_directory, keep=bool(keep))
    tracer = Tracer(session.debugger, store, project_root=session.project_root)
    session.trace_store = store  # before the tracer: the pump only looks at the tracer
    session.tracer = tracer
    return tracer


def _require_tracer(session: DebugSession) -> Tracer:
    if session.tracer is None:
        raise ToolError(
            ErrorCode.NO_TRACE,
            f"session {session.id} traces nothing yet",
            "debug_trace action=add patterns=[...] starts tracing",
        )
    return session.tracer


def _set_ring_memory(tracer: Tracer, mib: int) -> None:
    try:
        tracer.set_ring_memory(mib)
    except AliceError as error:
        raise bad_argument(str(error), "ring_memory_mib: 2 to 2048, set before calls are recorded") from error


def status_reply(env: ToolEnv, status: TraceStatus, omissions: Omissions) -> dict[str, Any]:
    functions = []
    for function in status.functions[: env.budget.max_items]:
        entry: dict[str, Any] = {"name": function.name, "calls": function.calls}
        if function.file is not None:
            entry["at"] = f"{os.path.basename(function.file)}:{function.line}"
        if function.sampled:
            entry["recorded"] = function.recorded
        if function.sample_every > 1:
            entry["sampled"] = f"1 in {function.sample_every}"
        if function.how != "trapped":  # patched (calls recorded in the program), or why not
            entry["traced_by"] = function.how
        if function.overflow:
            entry["dropped"] = f"{function.overflow} records: the rings were full"
        functions.append(entry)
    if len(status.functions) > env.budget.max_items:
        omissions.add(f"{len(status.functions) - env.budget.max_items} more traced functions", "")
    reply: dict[str, Any] = {
        "summary": status.summary(),
        "patterns": list(status.patterns),
        "functions": functions,
        "events": status.events,
        "store": status.store,
    }
    if status.ring_memory is not None:
        reply["ring_memory"] = status.ring_memory
    if status.sampling:
        reply["sampling"] = (
            "calls of hot functions are sampled: every call is counted, only some are "
            "recorded (see sampled)"
        )
    return reply


def _trace(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    action = args.text("action") or "status"
    patterns = [str(p) for p in args.items("patterns")]
    omissions = Omissions()
    reply: dict[str, Any] = {"session": session.id}
    with session.lock:
        try:
            if action == "add":
                if not patterns:
                    raise bad_argument("add needs patterns", _PATTERN_HINT)
                session.require_process()
                keep = args.flag("keep") if args.has("keep") else None
                tracer = _tracer(env, session, keep)
                if args.has("ring_memory_mib"):
                    _set_ring_memory(tracer, args.integer("ring_memory_mib") or 0)
                change = tracer.add(patterns)
                reply["traced"] = list(change.added)
            elif action == "remove":
                change = _require_tracer(session).remove(patterns or None)
                reply["untraced"] = list(change.added)
            else:
                change = None
            tracer = _require_tracer(session)
        except ProtocolError as error:
            raise ToolError(ErrorCode.BAD_PATTERN, str(error), _PATTERN_HINT) from error
        if change is not None and change.unmatched:
            reply["unmatched"] = list(change.unmatched)
        if change is not None and change.failed:
            reply["failed"] = list(change.failed)
        reply.update(status_reply(env, tracer.status(), omissions))
    for key in ("traced", "untraced"):
        names = reply.get(key)
        if isinstance(names, list) and len(names) > env.budget.max_items:
            omissions.add(f"{len(names) - env.budget.max_items} more {key} functions", "debug_trace")
            reply[key] = names[: env.budget.max_items]
    return omissions.attach(reply)


def _filters(args: Args) -> QueryFilters:
    kinds = tuple(str(k) for k in args.items("kinds"))
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise bad_argument(f"unknown event kinds {unknown}", f"kinds: {', '.join(KINDS)}")
    return QueryFilters(
        kinds=kinds,
        function=args.text("function"),
        function_contains=args.text("function_contains"),
        function_regex=args.text("function_regex"),
        file=args.text("file"),
        return_value=args.text("return_value"),
        return_is_null=args.flag("return_is_null") if args.has("return_is_null") else None,
        thread=args.integer("thread"),
        since_ms=args.number("since_ms"),
        until_ms=args.number("until_ms"),
        min_duration_ms=args.number("min_duration_ms"),
        limit=args.integer("limit") or DEFAULT_LIMIT,
        offset=args.integer("offset") or 0,
    )


def _query(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    filters = _filters(args)
    tracer = _require_tracer(session)
    store = session.trace_store
    assert store is not None
    try:
        result = query(store, filters)
    except ProtocolError as error:
        raise bad_argument(str(error), "function_regex uses Python syntax") from error
    omissions = Omissions()
    events = []
    for event in result.events:
        entry: dict[str, Any] = {"id": event.id, "kind": event.kind, "ms": round(event.time_ms, 3)}
        if event.thread is not None:
            entry["thread"] = event.thread
        if event.function is not None:
            entry["function"] = event.function
        if event.file is not None:
            entry["at"] = f"{os.path.basename(event.file)}:{event.line}"
        for key, value in (("call", event.call_id), ("parent", event.parent_id), ("depth", event.depth)):
            if value is not None:
                entry[key] = value
        if event.arguments is not None:
            text = ", ".join(f"{name}={value}" for name, value in event.arguments)
            entry["args"] = cut_value(text, env.budget, omissions, f"event {event.id} args", "")
        if event.kind == "return":
            entry["returned"] = event.return_value  # None: void
        if event.duration_ms is not None:
            entry["duration_ms"] = round(event.duration_ms, 3)
        if event.text is not None:
            entry["text"] = cut_value(event.text, env.budget, omissions, f"event {event.id} text", "")
        if event.data is not None:
            entry["data"] = event.data
        events.append(entry)
    reply: dict[str, Any] = {"session": session.id, "total": result.total, "offset": result.offset}
    reply["events"] = events
    if result.more:
        following = result.offset + len(result.events)
        reply["next_offset"] = following
        omissions.add(f"events {following}..{result.total - 1}", f"debug_query offset={following}")
    status = tracer.status()
    if status.sampling:
        reply["sampling"] = status.summary()
    return omissions.attach(reply)


def register(registry: ToolRegistry, env: ToolEnv) -> None:
    registry.add(ToolSpec(
        "debug_trace",
        "Trace function calls without stopping the program: each call is recorded with its "
        "arguments, thread and parent call, each return with its value and duration; "
        "output, crashes and the exit are recorded too. add/remove work while the program "
        "runs; status lists what is traced. Hot functions are sampled (every call counted, "
        "one in N recorded) and the reply says so. Read the record with debug_query.",
        (
            SESSION,
            Param("action", "string", "add, remove or status (default).",
                  enum=("add", "remove", "status"), default="status"),
            Param("patterns", "array", "add/remove: function-name globs (parse_*, ns::**), "
                  "@file:GLOB, @usercode; remove without patterns removes all.", items="string"),
            Param("keep", "boolean", "Keep the trace file after the session ends (default: "
                  "deleted; kept files are purged after 7 days)."),
            Param("ring_memory_mib", "integer", "add: MiB for calls recorded in the program and "
                  "not yet stored (default 256): past it records are dropped and counted."),
        ),
        lambda a: _trace(env, a),
    ))
    registry.add(ToolSpec(
        "debug_query",
        "Query the recorded trace: events (call, return, stdout, stderr, crash, exit) "
        "oldest first; all filters must hold. Page with limit/offset.",
        (
            SESSION,
            Param("kinds", "array", f"Event kinds: {', '.join(KINDS)} (default all).", items="string"),
            Param("function", "string", "The function's name equals this."),
            Param("function_contains", "string", "The function's name contains this."),
            Param("function_regex", "string", "The function's name matches this regex (Python)."),
            Param("file", "string", "The source path ends with this (parser.c, src/parser.c)."),
            Param("return_value", "string", "Returns with this formatted value (0, 0x0, true)."),
            Param("return_is_null", "boolean", "true: returns without a value (void); false: with one."),
            Param("thread", "integer", "Events of this thread.", minimum=1),
            Param("since_ms", "number", "From this time (ms since the trace started).", minimum=0),
            Param("until_ms", "number", "Up to this time (ms).", minimum=0),
            Param("min_duration_ms", "number", "Returns that took at least this long (ms).", minimum=0),
            Param("limit", "integer", f"Events to return (default {DEFAULT_LIMIT}).",
                  minimum=1, maximum=MAX_LIMIT),
            Param("offset", "integer", "Skip this many matching events.", minimum=0),
        ),
        lambda a: _query(env, a),
        read_only=True,
    ))
