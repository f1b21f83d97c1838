"""The agent tools: a watch on a local is deleted when its function returns, and the stop
says so (watches_deleted); a watch on a global stays listed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from aliceserver.adapters.agent import build_tools
from aliceserver.adapters.cli.format import context_lines
from aliceserver.adapters.mcp.server import build_server
from aliceserver.serve import ptrace_debugger
from tests.support.agent_client import AgentClient, run_client
from tests.support.build import Builder, marker_line

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def registry() -> Iterator[object]:
    tools, sessions = build_tools(ptrace_debugger)
    try:
        yield tools
    finally:
        sessions.close_all()


def test_watch_on_a_local_is_deleted_when_its_function_returns(builder: Builder, registry: object) -> None:
    program = str(builder.build("watch_scope"))
    at = marker_line("watch_scope.c", "acc")

    async def body(tools: AgentClient) -> None:
        await tools.call("debug_launch", program=program, breakpoints=[f"watch_scope.c:{at}"])
        await tools.call("debug_continue", timeout=60)
        await tools.call("debug_breakpoint", action="remove", id=1)
        local = (await tools.call("debug_watch", expression="acc"))["watchpoint"]
        total = (await tools.call("debug_watch", expression="global_total"))["watchpoint"]
        stops = []
        while True:
            reply = await tools.call("debug_continue", timeout=60)
            stops.append(reply["stop"])
            if reply["stop"]["reason"] != "watchpoint":
                break
        assert [s["watch"]["id"] for s in stops[:-1]] == [local["id"]] * 3 + [total["id"]]
        end = stops[-1]
        assert end["reason"] == "watchpoint-scope", end
        assert end["watches_deleted"] == [{
            "id": local["id"], "expression": "acc",
            "why": "the program has left the block in which its expression is valid",
        }]
        assert reply["location"]["function"] == "main"
        assert reply["location"]["line"] == marker_line("watch_scope.c", "call")
        assert f"  watch {local['id']} deleted: acc: the program has left the block in which its expression is valid" in context_lines(reply)
        listed = await tools.call("debug_watch", action="list")
        assert [w["id"] for w in listed["watchpoints"]] == [total["id"]]
        await tools.call("debug_stop")

    run_client(build_server(registry), body)  # type: ignore[arg-type]
