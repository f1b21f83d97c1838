"""The engine a front end gets: one factory, which every entry point (DAP, MCP, the CLI
daemon, gdb's command line for MI) hands to the front end it starts."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from aliceserver.startup import import_quietly

if TYPE_CHECKING:
    from aliceserver.debuggers.base import IDebugger


def ptrace_debugger(cache_dir: str | None = None) -> IDebugger:
    """The Linux engine (imported on first use: the adapters never import it), keeping its
    indexes in `cache_dir` (`--cache-dir`; None: $ALICESERVER_CACHE_DIR or the default)."""
    engine = import_quietly("aliceserver.debuggers.ptrace.engine")  # see startup.py
    return cast("IDebugger", engine.PtraceDebugger(cache_dir))


def debugger_factory(cache_dir: str | None) -> Callable[[], IDebugger]:
    """The factory a front end is handed: engines keeping their indexes in `cache_dir`."""
    if cache_dir is None:
        return ptrace_debugger
    chosen = os.path.abspath(cache_dir)  # a later cd (gdb's --cd, `cd`) does not move it
    return lambda: ptrace_debugger(chosen)
