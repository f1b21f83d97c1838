"""Inspection tools: debug_context, debug_stack, debug_variables, debug_evaluate, debug_set,
debug_threads."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from aliceserver.adapters.agent.budget import Omissions, cut_value
from aliceserver.adapters.agent.common import (
    FRAME,
    SESSION,
    THREAD,
    ToolEnv,
    frame_of,
    frame_text,
    thread_of,
)
from aliceserver.adapters.agent.context import DYNAMIC, build_context, frame_variables, value_text
from aliceserver.adapters.agent.errors import ErrorCode, ToolError, bad_argument
from aliceserver.adapters.agent.registry import Args, Param, ToolRegistry, ToolSpec
from aliceserver.adapters.agent.session import DebugSession
from aliceserver.adapters.agent.tools_core import core_is_read_only
from aliceserver.adapters.gdbcommands.frames import frames_to_main
from aliceserver.debuggers.model import StackFrame, ThreadState, VariableInfo, VariableScope
from aliceserver.errors import AliceError

_SIMPLE_PATH = re.compile(r"[\w.\[\]>-]+")
_SCOPES = {"locals": None, "arguments": VariableScope.ARGUMENTS, "globals": VariableScope.GLOBALS}


def _context(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    with session.lock:
        return build_context(env, session, thread=args.integer("thread"), level=frame_of(session, args))


def stack(env: ToolEnv, args: Args) -> dict[str, Any]:
    """debug_stack's reply (and the console's bt): frames end at the program's main, as
    gdb's (`backtrace past-main off`), not in libc's __libc_start_call_main and _start."""
    session = env.session(args)
    with session.lock:
        session.require_stopped()
        thread = thread_of(session, args)
        start = args.integer("start") or 0
        count = min(args.integer("count") or env.budget.max_frames, env.budget.max_frames)
        # From the innermost: whether main lies above `start` decides what follows it.
        frames = frames_to_main(session.debugger.stack_trace(thread, 0, start + count + 1))[start:]
        omissions = Omissions()
        if len(frames) > count:
            omissions.add(f"frames from #{start + count} on", f"debug_stack start={start + count}")
        shown: list[Any] = [frame_text(f) for f in frames[:count]]
        if args.flag("locals"):
            shown = [_with_locals(env, session, thread, f, omissions) for f in frames[:count]]
    reply = {"session": session.id, "thread": thread, "frames": shown}
    if session.current_frame and thread == session.current_thread:
        reply["selected"] = session.current_frame
    return omissions.attach(reply)


def _with_locals(
    env: ToolEnv, session: DebugSession, thread: int, frame: StackFrame, omissions: Omissions
) -> dict[str, Any]:
    entry: dict[str, Any] = {"frame": frame_text(frame)}
    try:
        found = frame_variables(session, thread, frame.level)
    except AliceError:  # no debug information for this one
        return entry
    values: dict[str, str] = {}
    for variable in found[: env.budget.max_items]:
        values[variable.name] = cut_value(
            value_text(variable), env.budget, omissions, f"#{frame.level} {variable.name}",
            f"debug_variables frame={frame.level} path={variable.name}",
        )  # fmt: skip
    entry["locals"] = values
    return entry


def child_path(parent: str, parent_type: str, name: str) -> str:
    """The C expression for a child of the value `parent` (for the next debug_variables)."""
    base = parent if _SIMPLE_PATH.fullmatch(parent) else f"({parent})"
    if name.startswith("["):
        return f"{base}{name}"
    if name == "*" or name.startswith("*"):
        return f"*{base}"
    if parent_type.rstrip().endswith("*"):
        return f"{base}->{name}"
    return f"{base}.{name}"


def _members_of(variable: VariableInfo) -> VariableInfo:
    """Whose children an agent sees as `variable`'s: a Rust enum's active variant's (its
    fields; the discriminant is in the value's text)."""
    return variable.variant if variable.variant is not None else variable


def _entry(
    env: ToolEnv,
    session: DebugSession,
    variable: VariableInfo,
    path: str,
    depth: int,
    omissions: Omissions,
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": variable.name,
        "type": variable.type,
        "value": cut_value(value_text(variable), env.budget, omissions, path, f"debug_variables path={path}"),
    }
    if variable.error:
        entry["error"] = True
    if path != variable.name:  # how to name it in debug_evaluate, debug_set, debug_watch
        entry["path"] = path
    members = _members_of(variable)
    children = members.named_children + members.indexed_children
    if members.reference and children:
        entry["path"] = path
        entry["children"] = children
        if depth > 0:
            entry["members"] = _children(env, session, members, path, 0, None, depth - 1, omissions)
    return entry


def _children(
    env: ToolEnv,
    session: DebugSession,
    parent: VariableInfo,
    path: str,
    start: int,
    count: int | None,
    depth: int,
    omissions: Omissions,
) -> list[dict[str, Any]]:
    total = parent.named_children + parent.indexed_children
    limit = min(count or env.budget.max_items, env.budget.max_items)
    if parent.printer is not None and parent.printer.hint == "map":  # key, value, key...
        items = session.debugger.variable_children(parent.reference, 2 * start, 2 * limit)
        found = [replace(value, name=f"[{key.value}]") for key, value in zip(items[::2], items[1::2], strict=False)]
        if len(items) % 2:  # where the printer stopped (an error, its time limit): shown, not dropped
            found.append(items[-1])
        return _listed(env, session, parent, path, start, limit, total, found, depth, omissions, paths=False)
    found = session.debugger.variable_children(parent.reference, start, limit)
    return _listed(env, session, parent, path, start, limit, total, found, depth, omissions,
                   paths=parent.printer is None or parent.printer.hint == "array")


def _listed(
    env: ToolEnv, session: DebugSession, parent: VariableInfo, path: str, start: int, limit: int,
    total: int, found: list[VariableInfo], depth: int, omissions: Omissions, *, paths: bool,
) -> list[dict[str, Any]]:  # fmt: skip
    """Entries of a page of children; `paths`: an expression reaches each (a printer's
    children other than an array's elements are reached by none)."""
    if start + len(found) < total:
        following = start + len(found)
        omissions.add(
            f"{path}: children {following}..{total - 1}",
            f"debug_variables path={path} start={following} count={limit}",
        )
    return [
        _entry(env, session, child, _child_path(path, parent, child.name) if paths else child.name,
               depth, omissions)
        for child in found
    ]


def _child_path(path: str, parent: VariableInfo, name: str) -> str:
    """A child's expression; a Rust tuple variant's field by position (`some.0`: gdb's Rust
    refuses `some.__0` there)."""
    if parent.type.endswith(f"::{parent.name}") and re.fullmatch(r"__\d+", name):  # a variant
        return child_path(path, parent.type, name)[: -len(name)] + name[2:]
    return child_path(path, parent.type, name)


def _variables(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    omissions = Omissions()
    with session.lock:
        session.require_stopped()
        thread, level = thread_of(session, args), frame_of(session, args)
        path = (args.text("path") or "").strip()
        depth = min(args.integer("depth") or env.budget.max_depth, 3)
        reply: dict[str, Any] = {"session": session.id}
        if not path:
            scope = _SCOPES[args.text("scope") or "locals"]
            debugger = session.debugger
            found = (
                frame_variables(session, thread, level) if scope is None
                else debugger.frame_variables(thread, level, scope, dynamic=DYNAMIC)
            )
            start = args.integer("start") or 0
            limit = min(args.integer("count") or env.budget.max_items, env.budget.max_items)
            page = found[start : start + limit]
            if start + limit < len(found):
                omissions.add(
                    f"variables {start + limit}..{len(found) - 1}",
                    f"debug_variables start={start + limit}",
                )
            reply["variables"] = [_entry(env, session, v, v.name, 0, omissions) for v in page]
            return omissions.attach(reply)
        value = session.debugger.evaluate(path, thread, level, dynamic=DYNAMIC)
        if value.error:
            raise ToolError(ErrorCode.NO_VARIABLE, f"{path}: {value.value}", "check the path against debug_variables")
        entry = _entry(env, session, value, path, 0, omissions)
        members = _members_of(value)
        if members.reference and members.named_children + members.indexed_children:
            entry["members"] = _children(
                env, session, members, path, args.integer("start") or 0,
                args.integer("count"), depth - 1, omissions,
            )
        reply["variable"] = entry
        return omissions.attach(reply)


def _evaluate(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    expression = (args.text("expression") or "").strip()
    if not expression:
        raise bad_argument("an expression is needed")
    omissions = Omissions()
    with session.lock:
        session.require_stopped()
        thread, level = thread_of(session, args), frame_of(session, args)
        value = session.debugger.evaluate(expression, thread, level, args.text("format"), dynamic=DYNAMIC)
        if value.error:
            raise ToolError(ErrorCode.BAD_EXPRESSION, f"{expression}: {value.value}", "")
        entry = _entry(env, session, value, expression, 0, omissions)
    entry.pop("name", None)
    return omissions.attach({"session": session.id, "expression": expression, **entry})


def _set(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    target = (args.text("target") or "").strip()
    value = (args.text("value") or "").strip()
    if not target or not value:
        raise bad_argument("debug_set needs a target (x, s.f, p->f, a[2], $rax) and a value")
    with session.lock:
        session.require_stopped()
        thread, level = thread_of(session, args), frame_of(session, args)
        debugger = session.debugger
        before = debugger.evaluate(target, thread, level)
        if before.error:
            raise ToolError(ErrorCode.NO_VARIABLE, f"{target}: {before.value}", "")
        with core_is_read_only(session):
            written = debugger.evaluate(f"{target} = ({value})", thread, level)
        if written.error:
            raise ToolError(ErrorCode.BAD_EXPRESSION, f"{target} = {value}: {written.value}", "")
        after = debugger.evaluate(target, thread, level)
    return {"session": session.id, "target": target, "type": after.type, "was": before.value, "now": after.value}


def _threads(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    with session.lock:
        session.require_process()
        debugger = session.debugger
        entries = []
        for info in debugger.threads():
            entry: dict[str, Any] = {"id": info.tid, "name": info.name, "state": info.state.value}
            if info.tid == session.current_thread:
                entry["current"] = True
            if info.state is ThreadState.STOPPED and session.state.value != "running":
                frames = debugger.stack_trace(info.tid, 0, 1)
                if frames:
                    entry["at"] = frame_text(frames[0])
            entries.append(entry)
    omissions = Omissions()
    limit = env.budget.max_items * 4
    if len(entries) > limit:
        omissions.add(f"{len(entries) - limit} more threads", "")
    return omissions.attach({"session": session.id, "threads": entries[:limit]})


def register(registry: ToolRegistry, env: ToolEnv) -> None:
    registry.add(ToolSpec(
        "debug_context",
        "Where the program is and why: stop reason, thread, location, source around the "
        "current line (marked ->), a short stack, locals (and which changed since the "
        "previous stop), and program output new since the last context.",
        (SESSION, THREAD, FRAME),
        lambda a: _context(env, a),
        read_only=True,
    ))
    registry.add(ToolSpec(
        "debug_stack",
        "The stack of a thread, innermost frame first, with function and file:line.",
        (SESSION, THREAD,
         Param("start", "integer", "First frame to show (default 0).", minimum=0),
         Param("count", "integer", "Frames to show (default and maximum 20).", minimum=1),
         Param("locals", "boolean", "Also each frame's arguments and locals.")),
        lambda a: stack(env, a),
        read_only=True,
    ))
    registry.add(ToolSpec(
        "debug_variables",
        "Variables of a frame, or the members/elements of one value named by a path (a C "
        "expression: s, s.inner, p->next, arr, arr[3]). Values with children have a path to "
        "expand next; arrays page with start/count.",
        (
            SESSION,
            Param("path", "string", "The value to expand; empty lists the frame's variables."),
            Param("scope", "string", "Without path: locals (arguments and locals, default), "
                  "arguments or globals.", enum=tuple(_SCOPES), default="locals"),
            Param("start", "integer", "First child/element (default 0).", minimum=0),
            Param("count", "integer", "Children/elements to show (default and maximum 25).", minimum=1),
            Param("depth", "integer", "Levels to expand inline (default 1).", minimum=1, maximum=3),
            THREAD,
            FRAME,
        ),
        lambda a: _variables(env, a),
        read_only=True,
    ))
    registry.add(ToolSpec(
        "debug_evaluate",
        "Evaluate a C expression in a frame (names, members, a[i], *p, &x, casts, "
        "arithmetic, comparisons, $registers).",
        (
            SESSION,
            Param("expression", "string", "The expression.", required=True),
            Param("format", "string", "x (hex), d, o, t (binary), c, u, a (address), z.",
                  enum=("x", "d", "o", "t", "c", "u", "a", "z")),
            THREAD,
            FRAME,
        ),
        lambda a: _evaluate(env, a),
    ))
    registry.add(ToolSpec(
        "debug_set",
        "Change a variable, member, element or register ($rax) in the stopped program.",
        (
            SESSION,
            Param("target", "string", "What to change: x, s.f, p->f, a[2], $rax.", required=True),
            Param("value", "string", "The new value (a C expression).", required=True),
            THREAD,
            FRAME,
        ),
        lambda a: _set(env, a),
    ))
    registry.add(ToolSpec(
        "debug_threads",
        "The program's threads: id, name, state and where each is stopped.",
        (SESSION,),
        lambda a: _threads(env, a),
        read_only=True,
    ))
