"""DAP's path mappings for a program built elsewhere (its sources moved after the build),
against lldb-vscode-16 on the same program: `sourceMap` ([[from, to]]) maps frames and
breakpoints to the local file and a breakpoint set there binds; without it frames keep
their lines and name the build path. cpptools' `sourceFileMap` ({from: to}) does the same,
and the agent tools' `source_map` shows the source there."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from aliceserver.adapters.agent import build_tools
from aliceserver.adapters.mcp.server import build_server
from aliceserver.serve import ptrace_debugger
from tests.support.adapter_process import find_lldb_vscode
from tests.support.agent_client import AgentClient, run_client
from tests.support.build import marker_line
from tests.support.dap_client import DapClient
from tests.support.dap_session import alice_session, launch_arguments, spawned, start_session
from tests.support.moved import NAME, Moved, build_moved

pytestmark = pytest.mark.timeout(180)

LOOP = marker_line(NAME, "loop")


@pytest.fixture(scope="module")
def moved(tmp_path_factory: pytest.TempPathFactory) -> Moved:
    return build_moved(tmp_path_factory.mktemp("moved"))


def _seen(client: DapClient, moved: Moved, source: Path, mapping: dict[str, Any]) -> dict[str, Any]:
    """The breakpoint on `source` and the frame it stops in, as the adapter shows them."""
    launch = launch_arguments(moved.program, **mapping)
    session = start_session(client, moved.program, launch=launch, breakpoints={source: [LOOP]})
    bp = session.breakpoints[str(source)][0]
    frame = client.stack_trace(session.thread_id)[0]
    return {
        "breakpoint": (bp["verified"], bp.get("line"), bp.get("source", {}).get("path")),
        "frame": (frame["name"], frame["line"], frame["source"]["path"]),
    }


def _ours(moved: Moved, source: Path, mapping: dict[str, Any]) -> dict[str, Any]:
    with alice_session() as client:
        return _seen(client, moved, source, mapping)


@pytest.fixture(scope="module")
def lldb_vscode() -> str:
    found = find_lldb_vscode()
    if found is None:
        pytest.skip("lldb-vscode-16 not found (Debian package lldb-16): it is the reference")
    return found


def test_source_map_like_lldb_vscode(moved: Moved, lldb_vscode: str) -> None:
    mapping = {"sourceMap": [[str(moved.build_dir), str(moved.local_dir)]]}
    with spawned([lldb_vscode], validate=False, strict_seq=False) as client:
        expected = _seen(client, moved, moved.local_source, mapping)
    got = _ours(moved, moved.local_source, mapping)
    assert got == expected
    assert got["frame"] == ("main", LOOP, str(moved.local_source))


def test_missing_source_without_map_like_lldb_vscode(moved: Moved, lldb_vscode: str) -> None:
    with spawned([lldb_vscode], validate=False, strict_seq=False) as client:
        expected = _seen(client, moved, moved.built_source, {})
    got = _ours(moved, moved.built_source, {})
    assert got == expected
    assert got["frame"] == ("main", LOOP, str(moved.built_source))


def test_cpptools_source_file_map_loaded_sources_and_source(moved: Moved) -> None:
    with alice_session() as client:
        mapping = {"sourceFileMap": {str(moved.build_dir): str(moved.local_dir)}}
        got = _seen(client, moved, moved.local_source, mapping)
        assert got["frame"] == ("main", LOOP, str(moved.local_source))
        paths = [s["path"] for s in client.call("loadedSources", {})["sources"]]
        assert str(moved.local_source) in paths and str(moved.built_source) not in paths
        text = client.call("source", {"source": {"path": str(moved.local_source)}})["content"]
        assert "@bp:loop" in text
        frame = client.stack_trace(client.threads()[0]["id"])[0]
        assert "presentationHint" not in frame["source"]  # found: nothing to deemphasize


def test_missing_source_frame_is_deemphasized(moved: Moved) -> None:
    with alice_session() as client:
        session = start_session(client, moved.program, breakpoints={moved.built_source: [LOOP]})
        frame = client.stack_trace(session.thread_id)[0]
        assert frame["source"] == {"name": NAME, "path": str(moved.built_source), "presentationHint": "deemphasize"}


def test_bad_source_map_is_refused(moved: Moved) -> None:
    with alice_session() as client:
        client.call("initialize", {"adapterID": "alice"})
        reply = client.request("launch", launch_arguments(moved.program, sourceMap=[["only-one"]]))
        assert not reply["success"] and "sourceMap" in reply["message"]


@pytest.fixture
def tools() -> Iterator[Callable[[Callable[[AgentClient], Any]], None]]:
    registry, sessions = build_tools(ptrace_debugger)
    server = build_server(registry)
    try:
        yield lambda body: run_client(server, body)
    finally:
        sessions.close_all()


def test_agent_source_map(moved: Moved, tools: Callable[[Callable[[AgentClient], Any]], None]) -> None:
    async def body(agent: AgentClient) -> None:
        await agent.call("debug_launch", program=str(moved.program), breakpoints=[f"{moved.local_source}:{LOOP}"],
                         source_map=[f"{moved.build_dir}={moved.local_dir}"])
        stop = await agent.call("debug_continue", timeout=60)
        assert stop["location"]["line"] == LOOP and "@bp:loop" in stop["source"]
        await agent.call("debug_stop")
        await agent.call("debug_launch", program=str(moved.program), breakpoints=[f"{NAME}:{LOOP}"])
        stop = await agent.call("debug_continue", timeout=60)
        assert stop["location"]["line"] == LOOP and "source" not in stop
        await agent.call("debug_stop")
        await agent.fail("BAD_ARGUMENT", "debug_launch", program=str(moved.program), source_map=["no-equals"])

    tools(body)
