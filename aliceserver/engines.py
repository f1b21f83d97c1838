"""The engine a front end gets: one factory, which every entry point (DAP, MCP, the CLI
daemon, gdb's command line for MI) hands to the front end it starts."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from aliceserver.startup import import_quietly

if TYPE_CHECKING:
    from aliceserver.debuggers.base import IDebugger


def ptrace_debugger() -> IDebugger:
    """The Linux engine (imported on first use: the adapters never import it)."""
    engine = import_quietly("aliceserver.debuggers.ptrace.engine")  # see startup.py
    return cast("IDebugger", engine.PtraceDebugger())
