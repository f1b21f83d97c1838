"""Run commands typed in the debug console (continue, next, step, finish, stepi, nexti):
DAP's own continue/next/stepIn/stepOut handlers run them, and the client hears the
`continued` event that a console reply cannot imply, then the `stopped` one. The others
(run, until, jump, kill...) are refused with the client's control that does it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from aliceserver.adapters.console.hosted import HostedConsole
from aliceserver.adapters.dap import execution
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
    "kill": "the client's stop", "detach": "the client's disconnect", "attach": "an attach configuration",
    "interrupt": "the client's pause", "jump": "the client's Jump to Cursor (goto)",
    "until": "a breakpoint and continue", "advance": "a breakpoint and continue",
}  # fmt: skip


def run_control(
    session: DapSession, console: HostedConsole, name: str, text: str, frame: FrameRef | None
) -> JsonObject:
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
