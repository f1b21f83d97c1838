"""`python -m aliceserver --adapter mcp` as a real stdio subprocess, driven by the SDK's
stdio client: tools listed, a breakpoint in a loop with the locals that changed, several
sessions at once, and programs that die with the server."""

from __future__ import annotations

import pytest

from tests.support.agent_client import AgentClient, run_client, stdio_server_params
from tests.support.build import Builder, marker_line

pytestmark = pytest.mark.timeout(180)

LOOP_LINE = marker_line("src_basic.c", "loop_body")


def test_loop_breakpoint_context_over_stdio(builder: Builder) -> None:
    program = str(builder.build("src_basic"))

    async def body(tools: AgentClient) -> None:
        listed = await tools.client.list_tools()
        assert "debug_context" in {tool.name for tool in listed.tools}
        launched = await tools.call(
            "debug_launch", program=program, breakpoints=[f"src_basic.c:{LOOP_LINE}"]
        )
        assert launched["breakpoints"][0]["resolved"][0].startswith(f"loop_sum at src_basic.c:{LOOP_LINE}")
        first = await tools.call("debug_continue", timeout=60)
        assert first["stop"]["reason"] == "breakpoint"
        assert first["location"]["line"] == LOOP_LINE
        current = [row for row in first["source"].splitlines() if row.startswith("->")]
        assert current == [f"-> {LOOP_LINE} |         sum += i; /* @bp:loop_body */"]
        assert first["locals"]["i"] == "0"
        second = await tools.call("debug_continue", timeout=60)
        assert second["changed"]["i"] == {"was": "0", "now": "1"}
        third = await tools.call("debug_continue", timeout=60)
        assert third["changed"] == {"i": {"was": "1", "now": "2"}, "sum": {"was": "0", "now": "1"}}
        await tools.call("debug_breakpoint", action="remove", id=1)
        done = await tools.call("debug_continue", timeout=60)
        assert done["stop"]["signal"] == "SIGUSR1"  # the program raises it
        done = await tools.call("debug_continue", timeout=60)
        assert done["state"] == "exited" and done["exit"] == "exit code 0"
        assert "r=" in done["output"]["text"]
        await tools.call("debug_stop")

    run_client(stdio_server_params(), body)


def test_two_sessions_at_once_over_stdio(builder: Builder) -> None:
    program = str(builder.build("agent_bug"))

    async def body(tools: AgentClient) -> None:
        one = await tools.call("debug_launch", program=program, breakpoints=["total"])
        two = await tools.call("debug_launch", program=program)
        assert (one["session"], two["session"]) == ("agent_bug-1", "agent_bug-2")
        await tools.fail("AMBIGUOUS_SESSION", "debug_continue")
        ended = await tools.call("debug_continue", session="agent_bug-2", timeout=60)
        assert ended["exit"] == "exit code 1"
        stopped = await tools.call("debug_continue", session="agent_bug-1", timeout=60)
        assert stopped["location"]["function"] == "total"
        listed = await tools.call("debug_sessions")
        states = {s["id"]: s["state"] for s in listed["sessions"]}
        assert states == {"agent_bug-1": "stopped", "agent_bug-2": "exited"}

    # The client leaves with agent_bug-1 still stopped: the server kills it on its way out
    # (the leak check of conftest fails the test otherwise).
    run_client(stdio_server_params(), body)
