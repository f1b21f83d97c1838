"""debug_connect and debug_disconnect: a session on a program behind a stub of gdb's remote
protocol (gdbserver, qemu -g...), as gdb's `target remote` / `target extended-remote`, and
gdb's `disconnect`, which leaves the program to the stub.

The other tools work on such a session as on a local one; debug_stop ends it as gdb's quit
does: a program the stub started (gdbserver PROG, or our extended run) is killed, one the
stub attached to is detached and runs on.
"""

from __future__ import annotations

import os
from typing import Any

from aliceserver.adapters.agent.common import SESSION, ToolEnv, require_location
from aliceserver.adapters.agent.context import build_context
from aliceserver.adapters.agent.errors import ErrorCode, ToolError, bad_argument
from aliceserver.adapters.agent.registry import Args, Param, ToolRegistry, ToolSpec
from aliceserver.adapters.agent.session import State
from aliceserver.adapters.agent.tools_breakpoints import add_breakpoint
from aliceserver.adapters.agent.tools_session import PATHS, apply_paths, session_paths
from aliceserver.debuggers.target import RemoteTargets
from aliceserver.errors import AliceError


def _connect(env: ToolEnv, args: Args) -> dict[str, Any]:
    target = (args.text("target") or "").strip()
    if not target:
        raise bad_argument("target must be the stub's address", "HOST:PORT, e.g. localhost:1234")
    program = args.text("program")
    if program is not None:
        program = os.path.abspath(program)
        if not os.path.isfile(program):
            raise bad_argument(f"program {program!r} not found", "the local copy of the program the stub debugs")
    extended = args.flag("extended")
    paths = session_paths(args)
    session = env.sessions.connect_remote(target, extended=extended, program=program)
    try:
        with session.lock:
            apply_paths(session, paths)
            added = [add_breakpoint(env, session, require_location(str(spec))) for spec in args.items("breakpoints")]
            reply = build_context(env, session)
    except BaseException:
        env.sessions.remove(session)
        raise
    reply["pid"] = session.process.pid
    reply["target"] = target
    if added:
        reply["breakpoints"] = added
    return reply


def _disconnect(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    debugger = session.debugger
    if session.remote is None or not isinstance(debugger, RemoteTargets):
        raise ToolError(ErrorCode.UNSUPPORTED, "You can't do that when your target is `native'",
                        f"session {session.id} is not on a stub: debug_stop ends it")  # fmt: skip
    with session.lock:
        if session.state is State.RUNNING:
            raise ToolError(ErrorCode.NOT_STOPPED, "Cannot execute this command while the target is running.",
                            "debug_pause stops it first")  # fmt: skip
        try:
            if debugger.remote_connection() is not None:
                debugger.disconnect_remote()
        except AliceError as error:
            raise ToolError(ErrorCode.TARGET_ERROR, str(error)) from error
        env.sessions.remove(session)  # nothing left to kill or detach
    return {"session": session.id, "ended": True, "program": f"left to the stub at {session.remote} "
            f"(pid {session.process.pid}): debug_connect reaches it again"}  # fmt: skip


def register(registry: ToolRegistry, env: ToolEnv) -> None:
    registry.add(ToolSpec(
        "debug_connect",
        "Debug a program behind a gdbserver (or any gdb remote stub) in a new session: "
        "target=HOST:PORT. The reply is where the program stands (gdbserver holds it at its "
        "first instruction: set breakpoints, then debug_continue). With extended=true and a "
        "program, a gdbserver --multi that debugs nothing starts it. Every other tool works "
        "on the session; debug_disconnect leaves the program to the stub.",
        (
            Param("target", "string", "The stub's address: HOST:PORT.", required=True),
            Param("program", "string", "The local copy of the program (its symbols; default: the "
                  "path the stub names). With extended, the program the stub starts."),
            Param("extended", "boolean", "Extended remote (gdb's target extended-remote): the stub "
                  "outlives the program and can start one (gdbserver --multi)."),
            Param("breakpoints", "array", "Locations to break at before anything runs "
                  "(file:line, function, or address).", items="string"),
            *PATHS,
        ),
        lambda a: _connect(env, a),
    ))
    registry.add(ToolSpec(
        "debug_disconnect",
        "End a debug_connect session and leave the program to the stub, stopped where it is "
        "(gdb's disconnect): debug_connect reaches it again. debug_stop instead kills a program "
        "the stub started, or detaches from one it attached to.",
        (SESSION,),
        lambda a: _disconnect(env, a),
    ))
