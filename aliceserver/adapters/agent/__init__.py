"""The agent-session layer: debug sessions for coding agents (several at once, readable ids,
buffered output, stop waiting, locals history, budgets) and the tools over them, independent
of the protocol that carries them (MCP, a command line)."""

from __future__ import annotations

from aliceserver.adapters.agent import (
    tools_breakpoints,
    tools_control,
    tools_core,
    tools_exec,
    tools_inspect,
    tools_machine,
    tools_remote,
    tools_session,
    tools_trace,
)
from aliceserver.adapters.agent.budget import Budget
from aliceserver.adapters.agent.common import ToolEnv
from aliceserver.adapters.agent.registry import ToolRegistry
from aliceserver.adapters.agent.session import EventObserver
from aliceserver.adapters.agent.sessions import DebuggerFactory, SessionManager


def build_tools(
    factory: DebuggerFactory,
    budget: Budget | None = None,
    *,
    trace_directory: str | None = None,
    observer: EventObserver | None = None,
) -> tuple[ToolRegistry, SessionManager]:
    """Every agent tool over a new session manager; call `SessionManager.close_all` at the end.
    `observer` sees every event of every session (on its pump thread)."""
    budget = budget or Budget()
    sessions = SessionManager(factory, observer)
    env = ToolEnv(sessions, budget, trace_directory=trace_directory)
    registry = ToolRegistry(budget)
    modules = (
        tools_session, tools_core, tools_remote, tools_breakpoints, tools_exec, tools_inspect, tools_machine, tools_trace,
        tools_control,
    )  # fmt: skip
    for module in modules:
        module.register(registry, env)
    return registry, sessions
