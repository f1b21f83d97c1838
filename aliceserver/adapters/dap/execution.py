"""Threads and execution control: threads, continue, next, stepIn, stepOut, pause."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.adapters.dap.messages import Arguments, InvalidArguments, JsonObject, WrongState
from aliceserver.debuggers.model import StepKind

if TYPE_CHECKING:
    from aliceserver.adapters.dap.registry import Registry
    from aliceserver.adapters.dap.session import DapSession


def threads(session: DapSession, args: Arguments) -> JsonObject:
    found = session.debugger.threads(details=False)  # DAP shows ids and names alone
    return session.state.thread_list.body(found)


def _require_started(session: DapSession, command: str) -> None:
    if session.debugger.process is None:
        raise WrongState(f"{command}: the program is not being run")
    if not session.state.started:
        raise WrongState(f"{command}: the program has not started (configurationDone is pending)")


def continue_(session: DapSession, args: Arguments) -> JsonObject:
    thread = args.integer("threadId")
    _require_started(session, "continue")
    single = args.boolean("singleThread")
    with session.resuming():
        session.debugger.resume(thread if single else None)
    return {"allThreadsContinued": not single}


def _step(session: DapSession, args: Arguments, kind: StepKind, command: str) -> None:
    thread = args.integer("threadId")
    _require_started(session, command)
    granularity = args.opt_string("granularity") or "statement"
    debugger = session.debugger
    if granularity == "instruction" and kind is StepKind.OVER:
        # nexti: over a call, run to the instruction after it (or until the frame returns).
        pc = debugger.read_registers(thread)["rip"]
        here = debugger.disassemble(pc, 1)
        if here and here[0].mnemonic.startswith("call"):
            with session.resuming():
                debugger.run_until(thread, f"*{pc + here[0].size:#x}")
            return
        kind = StepKind.INSTRUCTION
    elif granularity == "instruction" and kind is StepKind.INTO:
        kind = StepKind.INSTRUCTION
    with session.resuming():
        debugger.step(thread, kind)


def next_(session: DapSession, args: Arguments) -> None:
    _step(session, args, StepKind.OVER, "next")


def step_in(session: DapSession, args: Arguments) -> None:
    if args.has("targetId"):
        raise WrongState("stepIn: step-in targets are not supported")
    _step(session, args, StepKind.INTO, "stepIn")


def step_out(session: DapSession, args: Arguments) -> None:
    _step(session, args, StepKind.OUT, "stepOut")


def goto_targets(session: DapSession, args: Arguments) -> JsonObject:
    """Where `goto` may jump for a source line: the line's code in the function a stopped
    thread is in (jumping into another function would run it on the wrong frame)."""
    path = args.object("source").path("path")
    line = session.state.line_in(args.integer("line"))
    stopped = list(session.state.last_stop)
    if session.debugger.process is None or not stopped:
        raise WrongState("gotoTargets: the program is not stopped")
    here = {frame.function for thread in stopped for frame in session.debugger.stack_trace(thread, 0, 1)}
    targets = []
    for location in session.debugger.resolve_location(f"{path}:{line}"):
        if location.function is None or location.function not in here:
            continue
        session.state.goto_targets.append((location.address, location.function))
        target_line = location.source.line if location.source is not None else line
        targets.append({"id": len(session.state.goto_targets), "label": f"{location.function}:{target_line}",
                        "line": session.state.line_out(target_line),
                        "instructionPointerReference": f"{location.address:#x}"})  # fmt: skip
    return {"targets": targets}


def goto(session: DapSession, args: Arguments) -> None:
    thread = args.integer("threadId")
    ident = args.integer("targetId")
    _require_started(session, "goto")
    if not 1 <= ident <= len(session.state.goto_targets):
        raise InvalidArguments(f"goto: unknown target {ident}")
    address, function = session.state.goto_targets[ident - 1]
    top = session.debugger.stack_trace(thread, 0, 1)
    if not top or top[0].function != function:
        raise WrongState(f"goto: thread {thread} is not in {function}")
    session.debugger.write_register(thread, "rip", address)
    session.handles.clear()  # the frames moved
    session.send_event("stopped", {"reason": "goto", "threadId": thread, "allThreadsStopped": True})


def pause(session: DapSession, args: Arguments) -> None:
    args.integer("threadId")
    if session.debugger.process is None:
        raise WrongState("pause: the program is not being run")
    session.state.pausing = True  # a stub says SIGINT (gdb's words): still our pause
    session.debugger.interrupt()  # a `stopped` event with reason `pause` follows


def register(registry: Registry) -> None:
    registry.add("threads", threads, show_user=False)
    registry.add("continue", continue_)
    registry.add("next", next_)
    registry.add("stepIn", step_in)
    registry.add("stepOut", step_out)
    registry.add("pause", pause)
    registry.add("gotoTargets", goto_targets)
    registry.add("goto", goto)
    registry.declare("supportsSteppingGranularity", True)  # next/stepIn's granularity
