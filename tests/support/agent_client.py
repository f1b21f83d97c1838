"""Driving the MCP server with the official SDK's client: in memory or over stdio."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from aliceserver.adapters.agent import build_tools
from aliceserver.adapters.mcp.server import build_server
from aliceserver.serve import ptrace_debugger

ROOT = Path(__file__).resolve().parent.parent.parent


class AgentClient:
    """Calls tools; `call` expects success, `fail` an error with a given code."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.transcript: list[tuple[str, dict[str, Any], dict[str, Any]]] = []

    async def reply(self, name: str, **arguments: Any) -> tuple[bool, dict[str, Any]]:
        result = await self.client.call_tool(name, arguments)
        data = result.structured_content
        assert isinstance(data, dict), result
        self.transcript.append((name, arguments, data))
        return result.is_error, data

    async def call(self, name: str, **arguments: Any) -> dict[str, Any]:
        is_error, data = await self.reply(name, **arguments)
        assert not is_error, f"{name}({arguments}) failed: {data}"
        return data

    async def fail(self, code: str, name: str, **arguments: Any) -> dict[str, Any]:
        is_error, data = await self.reply(name, **arguments)
        assert is_error and data["error"] == code, f"{name}({arguments}): {data}"
        return data


def stdio_server_params() -> StdioServerParameters:
    """`python -m aliceserver --adapter mcp` with this interpreter and environment."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "aliceserver", "--adapter", "mcp"],
        env=dict(os.environ),
        cwd=str(ROOT),
    )


Body = Callable[[AgentClient], Awaitable[None]]


def run_client(server: Any, body: Body) -> None:
    """Connect to `server` (an SDK Server, or StdioServerParameters) and run `body`."""

    async def main() -> None:
        async with Client(server, read_timeout_seconds=120) as client:
            await body(AgentClient(client))

    anyio.run(main)


@contextlib.contextmanager
def in_memory_server() -> Iterator[Callable[[Body], None]]:
    """Our MCP server over the live engine in this process, as a function that runs one
    body against it; the debug sessions the bodies opened are closed at the end."""
    registry, sessions = build_tools(ptrace_debugger)
    server = build_server(registry)
    try:
        yield lambda body: run_client(server, body)
    finally:
        sessions.close_all()
