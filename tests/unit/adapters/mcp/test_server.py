"""The MCP binding, through the SDK's in-memory client: tools listed with schemas and
descriptions, replies as structured content plus readable text, tool errors with codes,
and a pause served while a continue waits."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest
from mcp import Client, MCPError

from aliceserver.adapters.agent import build_tools
from aliceserver.adapters.mcp.server import build_server
from tests.support.fake_debugger import FakeDebugger
from tests.support.fake_program import FakeInstruction, FakeProgram


def run_with_client(body: Callable[[Client], Awaitable[None]], program: FakeProgram | None = None) -> None:
    registry, sessions = build_tools(lambda: FakeDebugger(program))
    server = build_server(registry)

    async def main() -> None:
        async with Client(server) as client:
            await body(client)

    try:
        anyio.run(main)
    finally:
        sessions.close_all()


async def call(client: Client, name: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.structured_content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def test_tools_are_listed_with_schemas_and_the_server_introduces_itself() -> None:
    async def body(client: Client) -> None:
        listed = await client.list_tools()
        tools = {tool.name: tool for tool in listed.tools}
        assert len(tools) == 31  # 20 of the first agent issue, 7 of issue 6, debug_core and debug_gcore of issue 16,
        # debug_connect and debug_disconnect of issue 17
        launch = tools["debug_launch"]
        assert launch.description and "held before its first instruction" in launch.description
        assert launch.input_schema["properties"]["program"]["type"] == "string"
        assert launch.input_schema["required"] == ["program"]
        assert tools["debug_context"].annotations is not None
        assert tools["debug_context"].annotations.read_only_hint is True
        assert client.instructions is not None and "debug_launch" in client.instructions

    run_with_client(body)


def test_replies_carry_structured_content_and_rendered_text() -> None:
    async def body(client: Client) -> None:
        result = await client.call_tool("debug_launch", {"program": "/bin/prog", "breakpoints": ["helper"]})
        assert not result.is_error
        assert isinstance(result.structured_content, dict)
        assert result.structured_content["session"] == "prog-1"
        [text] = result.content
        assert text.type == "text"
        assert "session: prog-1" in text.text.splitlines()
        stop = await call(client, "debug_continue")
        assert stop["location"]["function"] == "helper"
        assert stop["output"]["text"] == "hello\n"

    run_with_client(body)


def test_tool_errors_have_a_code_and_a_hint() -> None:
    async def body(client: Client) -> None:
        result = await client.call_tool("debug_stack", {})
        assert result.is_error
        assert result.structured_content is not None
        assert result.structured_content["error"] == "NO_SESSION"
        assert "hint:" in result.content[0].text  # type: ignore[union-attr]
        bad = await client.call_tool("debug_launch", {"program": 42})
        assert bad.is_error and bad.structured_content is not None
        assert bad.structured_content["error"] == "BAD_ARGUMENT"
        with pytest.raises(MCPError):
            await client.call_tool("debug_nonexistent", {})

    run_with_client(body)


def test_pause_is_served_while_continue_waits() -> None:
    # A program that never stops by itself: main loops on a waiting instruction.
    looping = FakeProgram(instructions=(
        FakeInstruction(function="main"), FakeInstruction(blocks=True), FakeInstruction(ret=True),
    ))

    async def body(client: Client) -> None:
        await call(client, "debug_launch", program="/bin/loop")
        replies: dict[str, dict[str, Any]] = {}

        async def wait_long() -> None:
            replies["continue"] = await call(client, "debug_continue", timeout=300)

        async with anyio.create_task_group() as group:
            group.start_soon(wait_long)
            while True:  # the continue has set the program running
                sessions = await call(client, "debug_sessions")
                if sessions["sessions"][0]["state"] == "running":
                    break
                await anyio.sleep(0.01)
            replies["pause"] = await call(client, "debug_pause")
        assert replies["pause"]["stop"]["reason"] == "pause"
        assert replies["continue"]["stop"]["reason"] == "pause"  # the continue saw that stop

    run_with_client(body, looping)
