"""Session tools: debug_launch, debug_attach, debug_stop, debug_sessions."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from aliceserver.adapters.agent.common import (
    SESSION,
    TIMEOUT,
    ToolEnv,
    require_location,
    timeout_of,
)
from aliceserver.adapters.agent.context import build_context, execution_reply
from aliceserver.adapters.agent.errors import bad_argument
from aliceserver.adapters.agent.registry import Args, Param, ToolRegistry, ToolSpec
from aliceserver.adapters.agent.session import DebugSession, State
from aliceserver.adapters.agent.tools_breakpoints import add_breakpoint
from aliceserver.adapters.agent.tools_exec import resume_and_wait
from aliceserver.debuggers.model import LaunchConfig, StdioMode

FINAL_OUTPUT = 1000  # characters of output a debug_stop reply shows
PATHS = (
    Param("source_map", "array", "FROM=TO: the program was built where its sources were under FROM; "
          "they are under TO here (as gdb's set substitute-path).", items="string"),
    Param("auto_load_safe_path", "array", "Directories whose gdb printer scripts (PROG-gdb.py, "
          ".debug_gdb_scripts) may run, besides gdb's default safe path (as gdb's "
          "add-auto-load-safe-path); scripts elsewhere are declined.", items="string"),
)


@dataclass(frozen=True)
class SessionPaths:
    source_map: list[tuple[str, str]]  # FROM, TO
    safe_path: list[str]


def _launch(env: ToolEnv, args: Args) -> dict[str, Any]:
    program = args.text("program") or ""
    cwd = args.text("cwd")
    if cwd is not None and not os.path.isdir(cwd):
        raise bad_argument(f"cwd {cwd!r} is not a directory")
    path = program if os.path.isabs(program) or cwd is None else os.path.join(cwd, program)
    if os.sep not in program and not os.path.exists(path):
        raise bad_argument(
            f"program {program!r} not found", "give a path: ./prog, or an absolute one"
        )
    paths = session_paths(args)
    extra = args.mapping("env")
    environment = {**os.environ, **extra} if extra is not None else None
    config = LaunchConfig(
        program=os.path.abspath(path),
        args=tuple(str(a) for a in args.items("args")),
        cwd=cwd,
        env=environment,
        stdio=StdioMode.PIPES,
        stop_on_entry=args.flag("stop_on_entry"),
    )
    session = env.sessions.launch(config)
    try:
        with session.lock:
            apply_paths(session, paths)
            added = [add_breakpoint(env, session, require_location(str(spec))) for spec in args.items("breakpoints")]
    except BaseException:
        env.sessions.remove(session)
        raise
    if config.stop_on_entry:
        reply = resume_and_wait(env, session, None, timeout_of(args))
    else:
        reply = build_context(env, session)
    reply["pid"] = session.process.pid
    if added:
        reply["breakpoints"] = added
    return reply


def session_paths(args: Args) -> SessionPaths:
    """`source_map`: FROM=TO pairs, as gdb's `set substitute-path FROM TO`; and
    `auto_load_safe_path`: directories, as gdb's `add-auto-load-safe-path`."""
    pairs = []
    for item in args.items("source_map"):
        source, equals, target = str(item).partition("=")
        if not equals or not source:
            raise bad_argument(f"source_map entry {item!r} is not FROM=TO", "e.g. /build/src=/srv/project/src")
        pairs.append((source, target))
    safe = [str(item) for item in args.items("auto_load_safe_path")]
    if not all(safe):
        raise bad_argument("auto_load_safe_path has an empty directory", "give directories, e.g. /srv/project")
    return SessionPaths(pairs, safe)


def apply_paths(session: DebugSession, paths: SessionPaths) -> None:
    for source, target in paths.source_map:
        session.debugger.source_paths.add_rule(source, target)
    for directory in paths.safe_path:
        session.debugger.auto_load.add_safe_path(directory)


def _attach(env: ToolEnv, args: Args) -> dict[str, Any]:
    paths = session_paths(args)
    session = env.sessions.attach(args.integer("pid") or 0)
    apply_paths(session, paths)
    result = session.wait(0, timeout_of(args))
    reply = execution_reply(env, session, result, timeout_of(args))
    reply["pid"] = session.process.pid
    return reply


def _stop(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    mode = args.text("mode")
    with session.lock:
        state = session.state
        env.sessions.remove(session, None if mode is None else mode == "detach")
    how = "detached" if (mode == "detach" or (mode is None and session.process.attached)) else "killed"
    reply: dict[str, Any] = {"session": session.id, "ended": True}
    if session.core is not None:
        reply["program"] = f"core file closed ({session.core})"
    elif state is State.EXITED:
        reply["exit"] = session.exit_text()
    else:
        reply["program"] = f"{how} (pid {session.process.pid})"
    tail = session.output.tail(FINAL_OUTPUT)
    if tail.text:
        reply["last_output"] = tail.text
    return reply


def describe(session: DebugSession) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": session.id,
        "program": session.process.program,
        "pid": session.process.pid,
        "attached": session.process.attached,
        "state": session.state.value,
    }
    if session.core is not None:
        entry["core"] = session.core
    if session.state is State.EXITED:
        entry["exit"] = session.exit_text()
    elif session.state is State.STOPPED and session.last_stop is not None:
        entry["stop"] = session.last_stop.reason.value
    return entry


def _sessions(env: ToolEnv, args: Args) -> dict[str, Any]:
    sessions = [describe(s) for s in env.sessions.all()]
    reply: dict[str, Any] = {"sessions": sessions}
    if not sessions:
        reply["hint"] = "debug_launch or debug_attach starts a session"
    return reply


def register(registry: ToolRegistry, env: ToolEnv) -> None:
    registry.add(ToolSpec(
        "debug_launch",
        "Start a program under the debugger in a new session (id like prog-1). It is held "
        "before its first instruction: set breakpoints (or pass them here), then debug_continue. "
        "With stop_on_entry it runs to the entry point and returns the context there.",
        (
            Param("program", "string", "Path of the executable (absolute, or relative to cwd).", required=True),
            Param("args", "array", "Command-line arguments.", items="string"),
            Param("cwd", "string", "Working directory of the program."),
            Param("env", "object", "Variables added to the server's environment.", values="string"),
            Param("stop_on_entry", "boolean", "Run to the program's entry point and stop there."),
            Param("breakpoints", "array", "Locations to break at before anything runs "
                  "(file:line, function, or address).", items="string"),
            *PATHS,
            TIMEOUT,
        ),
        lambda a: _launch(env, a),
    ))
    registry.add(ToolSpec(
        "debug_attach",
        "Attach to a running process by pid in a new session; it stops, and the reply is its context.",
        (Param("pid", "integer", "Process id.", required=True, minimum=1), *PATHS, TIMEOUT),
        lambda a: _attach(env, a),
    ))
    registry.add(ToolSpec(
        "debug_stop",
        "End a session: kill the program (launched ones, by default) or detach and let it run "
        "(attached ones, by default). The reply has its last output.",
        (SESSION, Param("mode", "string", "kill or detach (default: by how it started).",
                        enum=("kill", "detach"))),
        lambda a: _stop(env, a),
    ))
    registry.add(ToolSpec(
        "debug_sessions",
        "List the debug sessions: id, program, pid, state.",
        (),
        lambda a: _sessions(env, a),
        read_only=True,
    ))
