"""Run commands typed in the debug console. continue, next, step, stepi and nexti run
through DAP's own continue/next/stepIn handlers; finish, until, advance and jump are the
console's own (they act on its selected frame and print gdb's lines) run inside DAP's
resuming path; kill ends the program as the client's stop button does. The client hears
the `continued` event that a console reply cannot imply, then the `stopped` one (or
`exited` and `terminated`). run, start, attach and detach are the client's own controls."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from aliceserver.adapters.console.hosted import CONSOLE_RUNS, ConsoleError, HostedConsole
from aliceserver.adapters.dap import execution, lifecycle
from aliceserver.adapters.dap.handles import FrameRef
from aliceserver.adapters.dap.messages import Arguments, JsonObject, WrongState
from aliceserver.errors import ProtocolError

if TYPE_CHECKING:
    from aliceserver.adapters.dap.session import DapSession

Handler = Callable[["DapSession", Arguments], object]
# command -> (DAP handler, its `granularity`), as the client's buttons send them
_RUNS: dict[str, tuple[Handler, str | None]] = {
    "continue": (execution.continue_, None),
    "next": (execution.next_, None),
    "step": (execution.step_in, None),
    "finish": (execution.step_out, None),
    "stepi": (execution.step_in, "instruction"),
    "nexti": (execution.next_, "instruction"),
}
_CONTROLS = {
    "run": "the client's restart", "start": "the client's restart", "starti": "the client's restart",
    "detach": "the client's disconnect", "attach": "an attach configuration",
    "interrupt": "the client's pause",
}  # fmt: skip


def run_control(
    session: DapSession, console: HostedConsole, name: str, text: str, frame: FrameRef | None
) -> JsonObject:
    if name in CONSOLE_RUNS:
        return _console_run(session, console, text, frame)
    if name == "kill":
        return _kill(session)
    if name not in _RUNS:
        instead = _CONTROLS.get(name, "the client's controls")
        raise ProtocolError(f'"{name}" cannot be run from the debug console here: use {instead}.')
    handler, granularity = _RUNS[name]
    count = text.split()[1:]
    if count and count != ["1"]:
        raise ProtocolError(f'"{name}" takes no count in the debug console: run it once at a time.')
    thread = frame.thread_id if frame is not None else console.selection()[0]
    if thread is None:
        raise WrongState("The program is not being run.")
    raw: dict[str, object] = {"threadId": thread}
    if granularity is not None:
        raw["granularity"] = granularity
    before = session.state.expected_continues
    handler(session, Arguments(name, raw))
    # The reply to `evaluate` does not say the program runs: the client needs `continued`.
    session.state.expected_continues = before
    console.resumed = True  # its stop is shown on the console too, as gdb's console does
    return {"result": "Continuing." if name == "continue" else "", "variablesReference": 0}


def _console_run(
    session: DapSession, console: HostedConsole, text: str, frame: FrameRef | None
) -> JsonObject:
    """finish, until, advance, jump: the console's command in the console's frame (the
    client's frame when it chose another), resuming as DAP's own requests do."""
    if session.debugger.process is None:
        raise WrongState("The program is not being run.")
    if frame is not None:
        console.select(frame.thread_id, frame.level)
    before = session.state.expected_continues
    try:
        with session.resuming():
            shown = console.run(text, resumes=True)
    except ConsoleError as error:
        raise ProtocolError(str(error)) from None
    if console.resumed:  # the client needs `continued`: the reply does not say it runs
        session.state.expected_continues = before
    return {"result": shown.removesuffix("\n"), "variablesReference": 0}


def _kill(session: DapSession) -> JsonObject:
    """gdb's kill, as the client's stop button: the program ends (`exited`, `terminated`)."""
    process = session.debugger.process
    if process is None:
        raise WrongState("The program is not being run.")
    lifecycle.terminate(session, Arguments("terminate", {}))
    return {"result": f"[Inferior 1 (process {process.pid}) killed]", "variablesReference": 0}
