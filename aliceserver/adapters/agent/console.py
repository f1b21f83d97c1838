"""debug_console: one line of gdb's console (adapters/console, the MI console's commands
and output), in the session's selected thread and frame. Run commands go through the
execution tools (their reply is the new context, with the console's stop text as
`output`); `x` answers within the reply's budget; a line that is no command (or reads as
an expression: `x = 3`, `p - q`) is evaluated."""

from __future__ import annotations

from typing import Any

from aliceserver.adapters.agent.common import ToolEnv, timeout_of
from aliceserver.adapters.agent.errors import ErrorCode, ToolError, bad_argument, classify
from aliceserver.adapters.agent.registry import Args, ToolRegistry
from aliceserver.adapters.agent.session import DebugSession, State
from aliceserver.adapters.agent.tools_exec import run_and_wait
from aliceserver.adapters.console.host_breakpoints import HostBreakpoint
from aliceserver.adapters.console.hosted import (
    CONSOLE_RUNS,
    RUN_CONTROL,
    ConsoleError,
    HostedConsole,
)
from aliceserver.adapters.console.lines import command_name, read_line
from aliceserver.adapters.mi.breakpoints import WATCH_TYPES
from aliceserver.errors import AliceError

# gdb's run commands -> (tool, its arguments); a count is added from the line. finish,
# until, advance and jump are the console's own (CONSOLE_RUNS: its frame, gdb's lines).
_RUNS: dict[str, tuple[str, dict[str, Any]]] = {
    "continue": ("debug_continue", {}),
    "next": ("debug_step", {"kind": "over"}),
    "step": ("debug_step", {"kind": "into"}),
    "stepi": ("debug_step", {"kind": "instruction"}),
}
_INSTEAD = {"run": "debug_restart", "start": "debug_restart", "starti": "debug_restart",
            "kill": "debug_stop", "detach": "debug_stop mode=detach", "attach": "debug_attach",
            "interrupt": "debug_pause", "nexti": "debug_step kind=instruction (it enters calls)"}  # fmt: skip


def console_of(session: DebugSession) -> HostedConsole:
    """The session's console, made at its first command; the pump hands it every event
    from then on (the caller holds the session's lock)."""
    if session.console is None:  # its breakpoints numbered in debug_breakpoint's count
        session.console = HostedConsole(session.debugger, numbers=session.breakpoints.numbers)
        session.console.attach_host(AgentBreakpoints(session))
    session.console.drain()
    return session.console


class AgentBreakpoints:
    """debug_breakpoint's breakpoints and debug_watch's watchpoints in the console's table
    (console/host_breakpoints): listed with the console's under their numbers (one count);
    `delete N` removes one."""

    owner = "debug_breakpoint"

    def __init__(self, session: DebugSession) -> None:
        self._session = session

    def host_breakpoints(self) -> list[HostBreakpoint]:
        debugger = self._session.debugger
        try:
            infos = {info.id: info for info in debugger.location_breakpoints()}
            counts = {trap.id: trap.hit_count for trap in debugger.breakpoints()}
            watched = {info.id: info for info in debugger.watchpoints()}
        except AliceError:
            return []
        rows = []
        for record in self._session.breakpoints:
            info = infos.get(record.location_id) if record.location_id is not None else None
            if info is None:
                continue
            hits = sum(counts.get(ident, 0) for ident in info.breakpoint_ids)
            rows.append(HostBreakpoint(
                record.number, record.location, info.locations, info.breakpoint_ids, info.id,
                record.condition, hits, temporary=record.temporary, enabled=record.enabled,
            ))  # fmt: skip
        for watch in self._session.watches:
            found = watched.get(watch.watch_id) if watch.watch_id is not None else None
            if found is not None:
                rows.append(HostBreakpoint(watch.number, watch.expression, engine_id=found.id, hits=found.hit_count,
                                           kind=WATCH_TYPES["" if watch.access == "write" else "a"]))  # fmt: skip
        return rows

    def delete_host_breakpoint(self, number: int) -> None:
        session = self._session
        record, watch = session.breakpoints.remove(number), session.watches.remove(number)
        try:
            if record is not None and record.location_id is not None:
                session.debugger.remove_location_breakpoint(record.location_id)
            if watch is not None and watch.watch_id is not None:
                session.debugger.remove_watchpoint(watch.watch_id)
        except AliceError:
            pass  # gone with its process


def run_console(registry: ToolRegistry, env: ToolEnv, args: Args, examine: Any) -> dict[str, Any]:
    text = (args.text("command") or "").strip()
    if not text:
        raise bad_argument("an empty command", "bt, info locals, p EXPR, x/8xb ADDR, set var X = V")
    session = env.session(args)
    given = read_line(text)
    with session.lock:
        console = console_of(session)
        # as gdb: a lone word is its command (`x` goes on examining, `n` steps)
        name = command_name(console, given, lambda word: False)
        if name is None:
            return _call(registry, args, text, "debug_evaluate", {"expression": given.text})
        if name == "x":  # within the reply's budget, and a bare x goes on
            return {"command": text, "tool": "debug_console", **examine(env, args, given.text[1:])}
        if name not in RUN_CONTROL:
            return {"command": text, "tool": "debug_console", "session": session.id,
                    "output": _run(session, console, given.text)}  # fmt: skip
    if name in CONSOLE_RUNS:
        return _console_run(env, session, console, given.text, timeout_of(args))
    return _run_control(registry, args, session, console, name, text)


def _run(session: DebugSession, console: HostedConsole, line: str) -> str:
    stopped = session.state in (State.STOPPED, State.NOT_STARTED)
    if stopped:
        console.select(session.current_thread, session.current_frame, always=True)
    try:
        shown = console.run(line)
    except ConsoleError as error:
        failure = classify(error, ErrorCode.BAD_ARGUMENT)
        raise ToolError(failure.code, str(error), failure.hint) from None
    tid, level = console.selection()
    if stopped and tid is not None:  # frame N, up, thread N: debug_select's selection too
        session.current_thread, session.current_frame = tid, level
    return shown.removesuffix("\n")


def _run_control(
    registry: ToolRegistry,
    args: Args,
    session: DebugSession,
    console: HostedConsole,
    name: str,
    text: str,
) -> dict[str, Any]:
    if name not in _RUNS:
        instead = _INSTEAD.get(name, "the execution tools")
        raise ToolError(
            ErrorCode.UNSUPPORTED, f'"{name}" is not run from debug_console', f"use {instead}"
        )
    tool, arguments = _RUNS[name]
    rest = text.split(None, 1)[1].strip() if len(text.split(None, 1)) > 1 else ""
    arguments = dict(arguments)
    if rest:
        if tool != "debug_step" or not rest.isdigit():
            raise bad_argument(f'"{name} {rest}": not taken here', f"{name} [COUNT] (steps only)")
        arguments["count"] = int(rest)
    with session.lock:
        console.resumed = True
        console.stop_text = ""
    reply = _call(registry, args, text, tool, arguments)
    with session.lock:
        console.drain()
        if console.stop_text:
            reply["output"] = console.stop_text.removesuffix("\n")
    return reply


def _console_run(
    env: ToolEnv, session: DebugSession, console: HostedConsole, text: str, timeout: float
) -> dict[str, Any]:
    """finish, until, advance, jump: the console's command in the session's frame, run as
    the execution tools run (the reply is the new context); `output` is what gdb prints
    (Run till exit from #1 ..., the stop, Value returned is $1 = ...)."""
    shown: list[str] = []

    def start() -> None:
        console.select(session.current_thread, session.current_frame, always=True)
        console.stop_text = ""
        try:
            shown.append(console.run(text, resumes=True))
        except ConsoleError as error:
            failure = classify(error, ErrorCode.BAD_ARGUMENT)
            raise ToolError(failure.code, str(error), failure.hint) from None
        if not console.resumed:
            raise ToolError(ErrorCode.BAD_ARGUMENT, f'"{text}" did not run the program', "")

    reply = {"command": text, "tool": "debug_console",
             **run_and_wait(env, session, start, timeout)}  # fmt: skip
    with session.lock:
        console.drain()
        output = "".join(shown) + console.stop_text
    if output.strip():
        reply["output"] = output.removesuffix("\n")
    return reply


def _call(
    registry: ToolRegistry, args: Args, text: str, name: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    spec = registry.get(name)
    assert spec is not None
    if args.text("session"):
        arguments["session"] = args.text("session")
    return {"command": text, "tool": name, **spec.handler(spec.parse(arguments))}
