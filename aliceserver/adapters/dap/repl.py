"""The debug console (evaluate, context `repl`): an expression, or a line of gdb's console.

The commands are the MI console's own (adapters/console): breakpoints, settings, value
history, displays, list, ptype, info..., with gdb's output. A line starting with a
backtick is always a command; a line that names no command, or reads as an expression
over a variable named like one (`p - q`, `x = 3`, a lone `n` in scope), is an expression
shown with its children as before. Commands that run the program take DAP's own path
(repl_run), so the client hears `continued` and `stopped`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.adapters.console.hosted import RUN_CONTROL, ConsoleError, HostedConsole
from aliceserver.adapters.console.lines import command_name, read_line
from aliceserver.adapters.dap.console_breakpoints import ClientBreakpoints
from aliceserver.adapters.dap.handles import FrameRef
from aliceserver.adapters.dap.messages import InvalidArguments, JsonObject, WrongState
from aliceserver.adapters.dap.repl_run import run_control
from aliceserver.errors import AliceError, ProtocolError

if TYPE_CHECKING:
    from aliceserver.adapters.dap.session import DapSession

# Offered by completions at the start of a line (every gdb command runs).
COMMANDS = ("bt", "backtrace", "break", "tbreak", "delete", "condition", "display", "frame",
            "up", "down", "info", "list", "print", "p", "ptype", "whatis", "x", "set", "show",
            "thread", "help")  # fmt: skip


def console_of(session: DapSession) -> HostedConsole:
    """The session's console, made at its first command (the pump hands it every event
    from then on)."""
    if session.console is None:
        # one table, one numbering: the session core's, the client's breakpoints' own
        console = HostedConsole(session.debugger, numbers=session.breakpoints.numbers)
        console.attach_host(ClientBreakpoints(session))
        session.console = console
    return session.console


def run(session: DapSession, line: str, frame: FrameRef | None) -> JsonObject:
    given = read_line(line)
    if not given.text:
        if given.forced:
            raise InvalidArguments("evaluate: empty command")
        return {"result": "", "variablesReference": 0}
    console = console_of(session)
    name = command_name(console, given, lambda word: _is_variable(session, word, frame))
    if name is None:
        return _expression(session, given.text, frame)
    if name in RUN_CONTROL:
        return run_control(session, console, name, given.text, frame)
    tid, level = _where(session, frame)
    console.select(tid, level)
    try:
        shown = console.run(given.text)
    except ConsoleError as error:
        raise ProtocolError(str(error)) from None
    return {"result": shown.removesuffix("\n"), "variablesReference": 0}


def _where(session: DapSession, frame: FrameRef | None) -> tuple[int | None, int]:
    if frame is not None:
        return frame.thread_id, frame.level
    stops = session.state.last_stop
    return (next(iter(stops)) if stops else None), 0


def _is_variable(session: DapSession, word: str, frame: FrameRef | None) -> bool:
    """A lone word that names a value in scope (not a function): `n` is the variable."""
    tid, level = _where(session, frame)
    if session.debugger.process is None or tid is None:
        return False
    try:
        info = session.debugger.evaluate(word, tid, level, type_only=True, calls=False)
    except AliceError:
        return False
    return "(" not in info.type


def _expression(session: DapSession, expression: str, frame: FrameRef | None) -> JsonObject:
    """A bare expression: its value with its children, out of the value history."""
    from aliceserver.adapters.dap.inspection import variable_json  # one-way at import time

    if session.debugger.process is None:
        raise WrongState("The program is not being run.")
    tid, level = _where(session, frame)
    thread = tid if tid is not None else session.debugger.process.pid
    info = session.debugger.evaluate(expression, thread, level, None, record=False)
    body = variable_json(session, info, frame or FrameRef(thread, level), expression)
    result: JsonObject = {"result": info.value, "type": info.type}
    for key in ("variablesReference", "namedVariables", "indexedVariables", "memoryReference"):
        if key in body:
            result[key] = body[key]
    return result
