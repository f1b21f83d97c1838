"""The context reply: where the program is stopped and why, the source around it, the
locals (and which changed since the previous stop), and what it printed since last time."""

from __future__ import annotations

from typing import Any

from aliceserver.adapters.agent.budget import Omissions, cut_value
from aliceserver.adapters.agent.common import (
    ToolEnv,
    decode_scalar,
    frame_text,
    location_of,
)
from aliceserver.adapters.agent.errors import ErrorCode, ToolError
from aliceserver.adapters.agent.session import DebugSession, LocalsSnapshot, State, WaitResult
from aliceserver.adapters.gdbcommands.frames import frames_to_main
from aliceserver.debuggers.events import Stopped, StopReason
from aliceserver.debuggers.model import DynamicTypes, StackFrame, VariableInfo, VariableScope
from aliceserver.errors import AliceError

STACK_PREVIEW = 5  # frames shown in a context reply
# C++ pointers and references show their objects' dynamic types, as in DAP (lldb's way).
DYNAMIC = DynamicTypes.POINTERS | DynamicTypes.MEMBERS


def frame_variables(session: DebugSession, thread: int, level: int) -> list[VariableInfo]:
    """Arguments, then locals, of one frame."""
    debugger = session.debugger
    found = debugger.frame_variables(thread, level, VariableScope.ARGUMENTS, dynamic=DYNAMIC)
    return found + debugger.frame_variables(thread, level, VariableScope.LOCALS, dynamic=DYNAMIC)


def value_text(variable: VariableInfo) -> str:
    """A value as the tools show it: as gdb prints it, a pretty printer's value with its
    children (`std::vector of length 3, capacity 3 = {1, 2, 3}`, as MI and the console);
    the callers cut it to the budget and point at debug_variables, which pages them."""
    return variable.value


def _named(variables: list[VariableInfo]) -> dict[str, str]:
    values: dict[str, str] = {}
    for variable in variables:
        name = variable.name
        while name in values:  # a shadowed outer variable keeps a distinct key
            name += "'"
        values[name] = value_text(variable)
    return values


def new_output(env: ToolEnv, session: DebugSession, omissions: Omissions) -> dict[str, Any] | None:
    """Output since the last context reply (its tail when long); advances the cursor."""
    buffer = session.output
    start = session.context_cursor
    if buffer.end <= start:
        return None
    limit = env.budget.max_output
    fresh = buffer.read(start, buffer.end - start)
    text, cursor = fresh.text, fresh.cursor
    if len(text) > limit:
        skipped = len(text) - limit
        text, cursor = text[skipped:], cursor + skipped
        omissions.add(
            f"program output: {skipped} earlier characters of this stretch",
            f"debug_output cursor={fresh.cursor}",
        )
    if fresh.dropped:
        omissions.add(
            f"program output: {fresh.dropped} characters no longer kept",
            "the server keeps the last 1 MiB of output per session",
        )
    session.context_cursor = fresh.next_cursor
    return {"text": text, "cursor": cursor, "next_cursor": fresh.next_cursor}


def _stop_details(
    env: ToolEnv, session: DebugSession, stop: Stopped, omissions: Omissions
) -> dict[str, Any]:
    details: dict[str, Any] = {"reason": stop.reason.value}
    if stop.description:
        details["description"] = stop.description
    if stop.signal_name or stop.signal:
        details["signal"] = stop.signal_name or stop.signal
    if stop.fault is not None:
        details["fault"] = stop.fault.description
        if stop.fault.address is not None:
            details["fault_address"] = f"{stop.fault.address:#x}"
    if stop.reason is StopReason.BREAKPOINT and stop.breakpoint_ids:
        numbers = [  # the user's numbers: debug_breakpoint's and the console's
            session.breakpoint_number(info.id) for info in session.debugger.location_breakpoints()
            if set(info.breakpoint_ids) & set(stop.breakpoint_ids)
        ]  # fmt: skip
        owners = [number for number in numbers if number is not None]
        details["breakpoints"] = owners or list(stop.breakpoint_ids)
    if stop.reason is StopReason.WATCHPOINT:
        details["watch"] = _watch_hit(session, stop)
    if stop.watches_left:  # as gdb, a watch on a frame's locals is deleted when the frame returns
        details["watches_deleted"] = [
            {"id": record.number, "expression": record.expression,
             "why": "the program has left the block in which its expression is valid"}
            for record in session.watches_left
        ] or [{"id": ident} for ident in stop.watches_left]  # fmt: skip
    if stop.return_value is not None:
        value = stop.return_value
        details["returned"] = {
            "type": value.type,
            "value": cut_value(value.value, env.budget, omissions, "returned value", "debug_evaluate $"),
        }
    return details


def _watch_hit(session: DebugSession, stop: Stopped) -> dict[str, Any]:
    hits = session.watches.owners(stop.breakpoint_ids, watch=True)
    if not hits:
        return {"ids": list(stop.breakpoint_ids)}
    record = hits[0]
    old = decode_scalar(stop.watch_old, record.type) if stop.watch_old is not None else record.last_value
    new = decode_scalar(stop.watch_new, record.type) if stop.watch_new is not None else "?"
    if stop.watch_new is not None:
        record.last_value = new
    return {"id": record.number, "expression": record.expression, "old": old, "new": new}


def _locals(
    env: ToolEnv,
    session: DebugSession,
    thread: int,
    frame: StackFrame,
    omissions: Omissions,
) -> tuple[dict[str, str], dict[str, Any]]:
    """The frame's variables (cut to the budget) and, for frame 0, what changed."""
    variables = frame_variables(session, thread, frame.level)
    values = _named(variables)
    changes: dict[str, Any] = {}
    if frame.level == 0:
        key = (thread, frame.function, frame.cfa)
        previous = session.record_locals(LocalsSnapshot(session.generation, key, dict(values)))
        if previous is not None:
            for name, value in values.items():
                old = previous.values.get(name)
                if old is not None and old != value:
                    changes[name] = {"was": old, "now": value}
    shown: dict[str, str] = {}
    names = list(values)
    for name in names[: env.budget.max_items]:
        shown[name] = cut_value(
            values[name], env.budget, omissions, f"local {name}", f"debug_variables path={name}"
        )
    if len(names) > env.budget.max_items:
        omissions.add(
            f"{len(names) - env.budget.max_items} more locals", "debug_variables (start, count)"
        )
    for change in changes.values():
        for side in ("was", "now"):
            change[side] = cut_value(change[side], env.budget, omissions, "a changed local", "debug_variables")
    return shown, changes


def build_context(
    env: ToolEnv, session: DebugSession, *, thread: int | None = None, level: int = 0
) -> dict[str, Any]:
    """The whole picture of a session, as much as its state allows."""
    omissions = Omissions()
    reply: dict[str, Any] = {"session": session.id, "state": session.state.value}
    state = session.state
    if state is State.EXITED:
        reply["exit"] = session.exit_text()
        reply["message"] = "the program has exited; debug_launch runs it again"
    elif state is State.RUNNING:
        reply["message"] = "the program is running: debug_pause stops it, debug_continue waits"
    elif state is State.NOT_STARTED:
        reply["message"] = (
            "launched and held before its first instruction: set breakpoints "
            "(debug_breakpoint), then debug_continue"
        )
    else:
        _stopped_context(env, session, thread, level, reply, omissions)
    output = new_output(env, session, omissions)
    if output is not None:
        reply["output"] = output
    return omissions.attach(reply)


def _stopped_context(
    env: ToolEnv,
    session: DebugSession,
    thread: int | None,
    level: int,
    reply: dict[str, Any],
    omissions: Omissions,
) -> None:
    debugger = session.debugger
    tid = thread or session.current_thread
    stop = session.last_stop
    if stop is not None:
        reply["stop"] = _stop_details(env, session, stop, omissions)
    reply["thread"] = tid
    thread_count = len(debugger.threads())
    if thread_count > 1:
        reply["threads"] = thread_count
    frames = frames_to_main(debugger.stack_trace(tid, 0, max(level + 1, STACK_PREVIEW) + 1))  # as gdb's bt
    if level >= len(frames):
        raise ToolError(ErrorCode.NO_FRAME, f"thread {tid} has {len(frames)} frames", "debug_stack lists them")
    frame = frames[level]
    if level:
        reply["frame"] = level
    reply["location"] = location_of(frame)
    if frame.source is not None:
        marks = frozenset(
            loc.source.line
            for info in debugger.location_breakpoints()
            for loc in info.locations
            if loc.source is not None and loc.source.path == frame.source.path
        )
        here = debugger.source_paths.fullname(frame.source.path)  # after the session's source_map
        window = env.sources.window(here, frame.source.line, env.budget.source_context, marks)
        if window is not None:
            reply["source"] = window.text
        else:
            omissions.add(f"source of {here}: file not readable here", "debug_disassemble, or source_map")
    else:
        omissions.add("source: no line information here", "debug_disassemble shows the instructions")
    reply["stack"] = [frame_text(f) for f in frames[:STACK_PREVIEW]]
    if len(frames) > STACK_PREVIEW:
        omissions.add("deeper stack frames", f"debug_stack start={STACK_PREVIEW}")
    try:
        shown, changes = _locals(env, session, tid, frame, omissions)
    except AliceError as error:  # no debug info for this frame: still a useful reply
        omissions.add(f"locals: {error}", "debug_registers, debug_disassemble")
        return
    reply["locals"] = shown
    if changes:
        reply["changed"] = changes


def execution_reply(
    env: ToolEnv, session: DebugSession, result: WaitResult, timeout: float
) -> dict[str, Any]:
    """What an execution tool answers after waiting: the new context, or what happened."""
    if result is WaitResult.RUNNING:
        reply: dict[str, Any] = {
            "session": session.id,
            "state": "running",
            "message": f"still running after {timeout:g} s: debug_pause stops it, "
            "debug_continue waits again (a larger timeout waits longer)",
        }
        omissions = Omissions()
        output = new_output(env, session, omissions)
        if output is not None:
            reply["output"] = output
        return omissions.attach(reply)
    return build_context(env, session)
