"""debug_trace and debug_query over the real engine through the MCP in-memory client:
calls recorded while the program runs, queried by function, kind and value; a crash
recorded while stopped at it; bad patterns and queries answered with stable codes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest

from aliceserver.adapters.agent import build_tools
from aliceserver.adapters.mcp.server import build_server
from aliceserver.serve import ptrace_debugger
from tests.support.agent_client import AgentClient, run_client
from tests.support.build import Builder

pytestmark = pytest.mark.timeout(180)

Body = Callable[[AgentClient], Awaitable[None]]


@pytest.fixture
def in_memory(tmp_path: Path) -> Iterator[Callable[[Body], None]]:
    registry, sessions = build_tools(ptrace_debugger, trace_directory=str(tmp_path))
    server = build_server(registry)
    try:
        yield lambda body: run_client(server, body)
    finally:
        sessions.close_all()
    assert list(tmp_path.iterdir()) == []  # stores not kept are deleted with their session


def test_trace_then_query_calls_returns_and_output(builder: Builder, in_memory: Callable[[Body], None]) -> None:
    program = str(builder.build("trace_calls"))

    async def body(tools: AgentClient) -> None:
        await tools.call("debug_launch", program=program)
        await tools.fail("NO_TRACE", "debug_query")
        await tools.fail("BAD_PATTERN", "debug_trace", action="add", patterns=["@file:"])
        added = await tools.call("debug_trace", action="add", patterns=["square", "fib", "nope_*"])
        assert sorted(added["traced"]) == ["fib", "square"] and added["unmatched"] == ["nope_*"]
        exited = await tools.call("debug_continue", timeout=60)
        assert exited["state"] == "exited"

        squares = await tools.call("debug_query", kinds=["call"], function="square", limit=100)
        assert squares["total"] == 12
        assert squares["events"][0]["args"] == "n=1" and squares["events"][0]["at"].startswith("trace_calls.c:")
        fives = await tools.call("debug_query", kinds=["return"], function="fib", return_value="5")
        assert fives["total"] == 1 and fives["events"][0]["depth"] == 0
        regex = await tools.call("debug_query", kinds=["call"], function_regex="^fi", limit=1)
        assert regex["total"] == 15 and regex["next_offset"] == 1
        printed = await tools.call("debug_query", kinds=["stdout"])
        assert any("note" in e["text"] for e in printed["events"])
        await tools.fail("BAD_ARGUMENT", "debug_query", function_regex="[")
        await tools.fail("BAD_ARGUMENT", "debug_query", kinds=["nope"])
        status = await tools.call("debug_trace", action="status")
        assert "2 functions traced" in status["summary"]
        # added at the exec stop: patched at once (the thread leaves execve for the mmap)
        assert all(f["traced_by"] == "patched" for f in status["functions"])
        await tools.call("debug_stop")

    in_memory(body)


def test_a_crash_is_recorded_while_stopped_there(builder: Builder, in_memory: Callable[[Body], None]) -> None:
    program = str(builder.build("trace_calls"))

    async def body(tools: AgentClient) -> None:
        await tools.call("debug_launch", program=program, args=["crash"])
        await tools.call("debug_trace", action="add", patterns=["crash_here"])
        crashed = await tools.call("debug_continue", timeout=60)
        assert crashed["stop"]["reason"] in ("exception", "crash", "signal"), crashed["stop"]
        [crash] = (await tools.call("debug_query", kinds=["crash"]))["events"]
        assert "SIGSEGV" in crash["text"] and crash["function"] == "crash_here"
        await tools.call("debug_stop")

    in_memory(body)
