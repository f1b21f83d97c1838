"""The agent tools as an MCP server (the SDK's low-level `Server`), and its stdio runner.

Tool calls run the blocking session layer in worker threads, so a `debug_pause` is served
while a `debug_continue` waits for the stop.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INVALID_PARAMS

from aliceserver import __version__
from aliceserver.adapters.agent import build_tools
from aliceserver.adapters.agent.registry import ToolRegistry, ToolSpec
from aliceserver.adapters.agent.render import render
from aliceserver.adapters.agent.sessions import DebuggerFactory

log = logging.getLogger(__name__)

INSTRUCTIONS = """\
A native-code debugger (C, C++, Rust on Linux x86-64). Typical use: debug_launch a program
(it is held before it runs; pass breakpoints=[...] or call debug_breakpoint), then
debug_continue / debug_step / debug_run_to: each waits for the next stop and returns the
context (location, source with the current line marked ->, locals and which changed,
new output). Inspect with debug_variables, debug_evaluate, debug_stack, debug_memory.
To see many calls without stopping, debug_trace action=add patterns=[...] records calls,
arguments and return values while the program runs; debug_query reads the record.
debug_core opens a crashed program's core file: the context at the crash, then the
inspection tools (read-only). debug_connect debugs a program behind a gdbserver (HOST:PORT)
with the same tools; debug_disconnect leaves it to the stub. Several sessions may run at once; pass session=ID when there
is more than one. Errors carry a stable code and a hint for the next step; replies say what
they left out ("omitted") and how to ask for it."""


def _tool(spec: ToolSpec) -> types.Tool:
    annotations = types.ToolAnnotations(read_only_hint=spec.read_only, open_world_hint=False)
    return types.Tool(
        name=spec.name,
        description=spec.description,
        input_schema=spec.input_schema(),
        annotations=annotations,
    )


def build_server(registry: ToolRegistry) -> Server[Any]:
    """An MCP server listing and calling every tool of `registry`."""
    tools = [_tool(spec) for spec in registry.specs()]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if registry.get(params.name) is None:  # the spec's answer for an unknown tool
            raise MCPError(INVALID_PARAMS, f"unknown tool {params.name!r}")
        # Abandoned on cancel: a client that leaves mid-wait must not hold the server up.
        reply = await anyio.to_thread.run_sync(
            registry.call, params.name, params.arguments, abandon_on_cancel=True
        )
        return types.CallToolResult(
            content=[types.TextContent(text=render(reply.data))],
            structured_content=reply.data,
            is_error=reply.is_error,
        )

    return Server(
        "aliceserver",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def serve_stdio(factory: DebuggerFactory) -> int:
    """Serve MCP on this process's stdin/stdout until the client closes it."""
    registry, sessions = build_tools(factory)
    server = build_server(registry)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    try:
        anyio.run(main)
    except KeyboardInterrupt:
        pass
    finally:
        sessions.close_all()  # launched programs die with the server, attached ones run on
    return 0

