"""A scripted agent finds a planted bug using only the MCP tools, over a real stdio server.

agent_bug.c corrupts `balance` with an off-by-one write past `history`. The agent runs the
program, sees the wrong balance in its output, runs it again to where balance is set,
watches it, and lands on the line that overwrites it with the loop index one past the end.
"""

from __future__ import annotations

import re

import pytest

from tests.support.agent_client import AgentClient, run_client, stdio_server_params
from tests.support.build import Builder, marker_line

pytestmark = pytest.mark.timeout(180)

BUG_LINE = marker_line("agent_bug.c", "bug")


def test_agent_finds_the_off_by_one(builder: Builder) -> None:
    program = str(builder.build("agent_bug"))
    findings: dict[str, object] = {}

    async def agent(tools: AgentClient) -> None:
        # 1. Run it once and read what it says.
        first = await tools.call("debug_launch", program=program)
        ran = await tools.call("debug_continue", session=first["session"], timeout=60)
        assert ran["state"] == "exited"
        printed = ran["output"]["text"]
        wrong = re.search(r"closing balance (-?\d+) \(expected (\d+)\)", printed)
        assert wrong is not None, printed
        assert wrong.group(1) != wrong.group(2)
        await tools.call("debug_stop", session=first["session"])

        # 2. Again, stopping in main; step until the locals show the balance set.
        second = await tools.call("debug_launch", program=program, breakpoints=["main"])
        session = second["session"]
        context = await tools.call("debug_continue", session=session, timeout=60)
        for _ in range(10):
            if "balance = 100" in context["locals"].get("acct", ""):
                break
            context = await tools.call("debug_step", session=session)
        else:
            pytest.fail(f"balance never became 100: {context}")

        # 3. Watch the balance and let it run: the culprit writes it.
        watch = await tools.call("debug_watch", session=session, expression="acct.balance")
        assert watch["watchpoint"]["value"] == "100"
        hit = await tools.call("debug_continue", session=session, timeout=60)
        assert hit["stop"]["reason"] == "watchpoint", hit
        findings["watch"] = hit["stop"]["watch"]
        findings["function"] = hit["location"]["function"]
        findings["line"] = hit["location"]["line"]
        marked = [row for row in hit["source"].splitlines() if row.startswith("->")]
        findings["source_line"] = marked[0]

        # 4. Look at the index and the array it writes.
        day = await tools.call("debug_evaluate", session=session, expression="day")
        findings["day"] = day["value"]
        history = await tools.call("debug_variables", session=session, path="acct->history")
        findings["history_length"] = history["variable"]["children"]
        await tools.call("debug_stop", session=session)

    run_client(stdio_server_params(), agent)

    assert findings["function"] == "record_deposits"
    assert findings["line"] == BUG_LINE
    assert "day <= DAYS" in str(findings["source_line"])
    watch = findings["watch"]
    assert isinstance(watch, dict)
    assert (watch["expression"], watch["old"], watch["new"]) == ("acct.balance", "100", "50")
    assert findings["day"] == "5" and findings["history_length"] == 5  # one past the end
