"""Calls into the program from DAP's evaluate and the agent's debug_evaluate
(tests/programs/infcall.c): DAP's repl and watch contexts run them; a hover does not, as
lldb-vscode-16 (which answers `error: No value` there) - ours says why; the agent's
evaluate runs them. The variable references a client holds stay good after a call (a
watch's `twice(3)`, then a struct listed before expanded): they were all dropped as if
the program had been resumed ("no variable reference N")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.adapter_process import alice_argv, find_lldb_vscode
from tests.support.agent_client import AgentClient, in_memory_server
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.dap_client import DapClient
from tests.support.dap_session import start_session

pytestmark = [pytest.mark.timeout(180)]

SOURCE = "infcall.c"


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return builder.build("infcall", flags=("-g", "-O0", "-pthread", "-no-pie"))


def _evaluations(argv: list[str], program: Path) -> dict[str, Any]:
    client = DapClient.spawn(argv)
    try:
        session = start_session(client, program, breakpoints={PROGRAMS_DIR / SOURCE: [marker_line(SOURCE, "main")]})
        frame = client.call("stackTrace", {"threadId": session.thread_id})["stackFrames"][0]["id"]
        found: dict[str, Any] = {}
        for context, expression in (("repl", "twice(3)"), ("watch", "add(x, 2)"), ("hover", "twice(3)"),
                                    ("hover", "x")):  # fmt: skip
            seq = client.send_request("evaluate", {"expression": expression, "context": context, "frameId": frame})
            reply = client.response(seq)
            found[f"{context} {expression}"] = reply["body"]["result"] if reply.get("success") else None
        found["calls_made"] = client.call(
            "evaluate", {"expression": "calls_made", "context": "watch", "frameId": frame}
        )["result"]  # add() counts: the hover ran nothing
        return found
    finally:
        client.close()


def test_dap_evaluate_calls_in_repl_and_watch_not_on_hover(program: Path) -> None:
    ours = _evaluations(alice_argv(), program)
    assert ours == {"repl twice(3)": "6", "watch add(x, 2)": "22", "hover twice(3)": None, "hover x": "20",
                    "calls_made": "1"}  # fmt: skip
    lldb = find_lldb_vscode()
    if lldb is not None:  # the reference adapter answers the same
        assert _evaluations([lldb], program) == ours


def test_dap_hover_says_why_it_does_not_call(program: Path) -> None:
    client = DapClient.spawn(alice_argv())
    try:
        session = start_session(client, program, breakpoints={PROGRAMS_DIR / SOURCE: [marker_line(SOURCE, "main")]})
        frame = client.call("stackTrace", {"threadId": session.thread_id})["stackFrames"][0]["id"]
        seq = client.send_request("evaluate", {"expression": "twice(3)", "context": "hover", "frameId": frame})
        reply = client.response(seq)
        assert not reply["success"] and "hover does not call" in reply["message"]
    finally:
        client.close()


def test_dap_references_outlive_a_call(program: Path) -> None:
    client = DapClient.spawn(alice_argv())
    try:
        session = start_session(client, program, breakpoints={PROGRAMS_DIR / SOURCE: [marker_line(SOURCE, "main")]})
        frame = client.call("stackTrace", {"threadId": session.thread_id})["stackFrames"][0]["id"]
        scope = client.call("scopes", {"frameId": frame})["scopes"][0]["variablesReference"]
        listed = {v["name"]: v for v in client.variables(scope)}
        pair = listed["p"]["variablesReference"]
        assert pair > 0
        called = client.call("evaluate", {"expression": "twice(3)", "context": "watch", "frameId": frame})
        assert called["result"] == "6"
        assert [(v["name"], v["value"]) for v in client.variables(pair)] == [("a", "3"), ("b", "4")]
        assert {v["name"] for v in client.variables(scope)} == set(listed)
    finally:
        client.close()


@pytest.fixture
def tools() -> Iterator[Any]:
    with in_memory_server() as run:
        yield run


def test_agent_evaluate_calls_a_function(program: Path, tools: Any) -> None:
    stop = f"{SOURCE}:{marker_line(SOURCE, 'main')}"

    async def body(client: AgentClient) -> None:
        await client.call("debug_launch", program=str(program), breakpoints=[stop])
        await client.call("debug_continue", timeout=60)
        found = await client.call("debug_evaluate", expression="twice(21)")
        assert found["value"] == "42", found
        found = await client.call("debug_evaluate", expression="make_pair(1, 2)")
        assert found["value"] == "{a = 1, b = 2}", found

    tools(body)
