"""debug_core: a core file in a new session, read-only, stopped where the program died.

The reply is the context a live stop at the crash would give (the signal, the fault and its
address, the thread, the frame and its source, the stack, the locals); the inspection tools
work afterwards, and the execution tools refuse in gdb's words (session.require_live).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from aliceserver.adapters.agent.common import ToolEnv
from aliceserver.adapters.agent.context import build_context
from aliceserver.adapters.agent.errors import bad_argument, classify
from aliceserver.adapters.agent.registry import Args, Param, ToolRegistry, ToolSpec
from aliceserver.adapters.agent.session import DebugSession
from aliceserver.adapters.agent.tools_session import PATHS, apply_paths, session_paths
from aliceserver.errors import AliceError

_READ_ONLY = (
    "a core file: the program is dead. Inspect it (debug_stack, debug_variables, debug_evaluate "
    "without calls, debug_memory, debug_disassemble, debug_registers, debug_threads, debug_select, "
    "debug_console); running tools answer NO_PROCESS"
)


@contextmanager
def core_is_read_only(session: DebugSession) -> Iterator[None]:
    """A write to a core is refused in gdb's words (Cannot access memory at address...): the
    hint says why, not that the address is unmapped."""
    try:
        yield
    except AliceError as error:
        if session.core is None:
            raise
        failure = classify(error)
        failure.hint = f"session {session.id} reads a core file: its memory and registers are read-only"
        raise failure from error


def _file(args: Args, name: str, what: str) -> str | None:
    path = args.text(name)
    if path is None:
        return None
    cwd = args.text("cwd")
    full = os.path.abspath(os.path.join(cwd, path) if cwd is not None else path)
    if not os.path.isfile(full):
        raise bad_argument(f"{what} {path!r} not found", "give a path: ./core, or an absolute one")
    return full


def _open(env: ToolEnv, args: Args) -> dict[str, Any]:
    core = _file(args, "core", "core file")
    assert core is not None  # a required parameter
    program = _file(args, "program", "program")
    paths = session_paths(args)
    session = env.sessions.open_core(core, program)
    with session.lock:
        apply_paths(session, paths)
        reply = build_context(env, session)
    reply["pid"] = session.process.pid
    reply["core"] = core
    reply["message"] = _READ_ONLY
    return reply


def register(registry: ToolRegistry, env: ToolEnv) -> None:
    registry.add(ToolSpec(
        "debug_core",
        "Open a core file (the memory image of a program that crashed) in a new session. The "
        "reply is the context at the crash: signal, fault address, thread, frame with source, "
        "stack, locals. Inspection tools work afterwards; continue, step and the like are refused.",
        (
            Param("core", "string", "Path of the core file.", required=True),
            Param("program", "string", "The executable the core is of (default: the one the core names)."),
            Param("cwd", "string", "Directory relative paths are taken from (default: the server's)."),
            *PATHS,
        ),
        lambda a: _open(env, a),
    ))
