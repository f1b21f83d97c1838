"""Execution tools: debug_continue, debug_step, debug_run_to, debug_pause.

Each one starts the program, waits for the next stop up to a timeout and answers with the
new context, or says plainly that the program is still running.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from aliceserver.adapters.agent.common import (
    SESSION,
    THREAD,
    TIMEOUT,
    ToolEnv,
    no_location,
    require_location,
    thread_of,
    timeout_of,
)
from aliceserver.adapters.agent.context import execution_reply
from aliceserver.adapters.agent.registry import Args, Param, ToolRegistry, ToolSpec
from aliceserver.adapters.agent.session import DebugSession, State, WaitResult
from aliceserver.debuggers.events import StopReason
from aliceserver.debuggers.model import StepKind

PAUSE_WAIT = 5.0  # seconds debug_pause waits for the stop it asked for
_STEPS = {
    "over": StepKind.OVER,
    "into": StepKind.INTO,
    "out": StepKind.OUT,
    "instruction": StepKind.INSTRUCTION,
}


def run_and_wait(
    env: ToolEnv, session: DebugSession, start: Callable[[], None], timeout: float
) -> dict[str, Any]:
    """Run `start` (which sets the program going) and wait for what follows."""
    with session.lock:
        session.require_live()
        if session.state is State.RUNNING:  # already running: just wait again
            generation = session.generation
        else:
            session.require_process()
            previous = session.state
            generation = session.begin_run()
            try:
                start()
            except BaseException:
                session.run_failed(previous, generation)
                raise
    result = session.wait(generation, timeout)
    return execution_reply(env, session, result, timeout)


def resume_and_wait(
    env: ToolEnv, session: DebugSession, thread: int | None, timeout: float
) -> dict[str, Any]:
    return run_and_wait(env, session, lambda: session.debugger.resume(thread), timeout)


def _continue(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    return resume_and_wait(env, session, None, timeout_of(args))


def _step(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    kind = _STEPS[args.text("kind") or "over"]
    count = args.integer("count") or 1
    timeout = timeout_of(args)
    reply: dict[str, Any] = {}
    for done in range(count):
        session.require_stopped()
        thread = thread_of(session, args)
        reply = run_and_wait(env, session, functools.partial(session.debugger.step, thread, kind), timeout)
        stop = session.last_stop
        ended = session.state is not State.STOPPED
        interrupted = stop is None or stop.reason not in (StopReason.STEP, StopReason.FUNCTION_FINISHED)
        if ended or interrupted:  # a breakpoint, signal or exit ends the series early
            if count > 1:
                reply["steps_done"] = done + 1
            return reply
    if count > 1:
        reply["steps_done"] = count
    return reply


def _run_to(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    location = require_location(args.text("location"))
    debugger = session.debugger
    with session.lock:
        session.require_stopped()
        if not debugger.resolve_location(location):
            raise no_location(location)
        not_started = session.state is State.NOT_STARTED
    thread = thread_of(session, args)

    def start() -> None:
        if not_started:  # nothing to return from yet: a temporary breakpoint does it
            debugger.insert_location_breakpoint(location, temporary=True)
            debugger.resume()
        else:
            debugger.run_until(thread, location)

    return run_and_wait(env, session, start, timeout_of(args))


def _pause(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    session.require_process()
    session.require_live()
    if session.state is not State.RUNNING:
        reply = execution_reply(env, session, WaitResult.STOPPED, 0)
        reply["message"] = "the program was not running"
        return reply
    generation = session.generation
    session.debugger.interrupt()
    timeout = args.number("timeout") or PAUSE_WAIT
    return execution_reply(env, session, session.wait(generation, timeout), timeout)


def register(registry: ToolRegistry, env: ToolEnv) -> None:
    registry.add(ToolSpec(
        "debug_continue",
        "Resume the program and wait for the next stop (breakpoint, watchpoint, signal, crash, "
        "exit); the reply is the new context. Already running: just waits again.",
        (SESSION, TIMEOUT),
        lambda a: _continue(env, a),
    ))
    registry.add(ToolSpec(
        "debug_step",
        "Step the stopped thread: over (next line, calls run through), into (enter calls), "
        "out (finish the function; the reply has its return value) or instruction; then "
        "the new context.",
        (
            SESSION,
            Param("kind", "string", "over (default), into, out or instruction.",
                  enum=tuple(_STEPS), default="over"),
            Param("count", "integer", "Steps to take (default 1); a breakpoint or exit ends "
                  "them early.", minimum=1, maximum=100),
            THREAD,
            TIMEOUT,
        ),
        lambda a: _step(env, a),
    ))
    registry.add(ToolSpec(
        "debug_run_to",
        "Run until a location is reached (file:line, function or address) or the current "
        "function returns, whichever comes first; then the new context.",
        (SESSION, Param("location", "string", "file:line, function, or address.", required=True),
         THREAD, TIMEOUT),
        lambda a: _run_to(env, a),
    ))
    registry.add(ToolSpec(
        "debug_pause",
        "Stop the running program and return its context.",
        (SESSION, TIMEOUT),
        lambda a: _pause(env, a),
    ))
