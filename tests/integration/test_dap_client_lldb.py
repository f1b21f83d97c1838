"""The DAP test client proven against the reference adapter, lldb-vscode-16 (stdio and TCP).

These check the client (framing, startup sequence, stops, inspection, clean shutdown) on a
real adapter, so that failures against our own adapter point at the adapter. Skipped when
lldb-vscode-16 is absent (Debian: `apt-get install lldb-16`; scripts/setup.sh does it).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.adapter_process import find_lldb_vscode, free_port
from tests.support.build import Builder, marker_line
from tests.support.dap_client import DapClient
from tests.support.dap_session import start_session

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def lldb_vscode() -> str:
    found = find_lldb_vscode()
    if found is None:
        pytest.skip("lldb-vscode-16 not found (Debian package lldb-16)")
    return found


@pytest.fixture
def program(builder: Builder) -> Path:
    return builder.build("src_basic")


@pytest.fixture
def source(builder: Builder) -> Path:
    return builder.source("src_basic")


@pytest.fixture(params=["stdio", "tcp"])
def client(request: pytest.FixtureRequest, lldb_vscode: str, tmp_path: Path) -> Iterator[DapClient]:
    stderr = tmp_path / "adapter.stderr"
    if request.param == "stdio":
        made = DapClient.spawn([lldb_vscode], validate=True, strict_seq=False, stderr=stderr)
    else:
        port = free_port()
        made = DapClient.spawn_tcp(
            [lldb_vscode, "--port", str(port)], port, validate=True, strict_seq=False, stderr=stderr
        )
    try:
        yield made
    finally:
        made.close()


def frame_names(client: DapClient, thread_id: int) -> list[str]:
    return [str(frame["name"]) for frame in client.stack_trace(thread_id)]


def test_breakpoint_stack_locals_step_and_exit(
    client: DapClient, program: Path, source: Path
) -> None:
    leaf = marker_line(source, "leaf")
    session = start_session(client, program, breakpoints={source: [leaf]})
    assert [bp["verified"] for bp in session.breakpoints[str(source)]] == [True]
    assert session.stop is not None and session.stop["body"]["reason"] == "breakpoint"
    thread = session.thread_id
    assert [t["id"] for t in client.threads()] == [thread]

    frames = client.stack_trace(thread)
    assert [f["name"] for f in frames[:4]] == ["leaf", "middle", "top", "main"]
    assert (frames[0]["line"], frames[0]["source"]["path"]) == (leaf, str(source))
    assert client.scope_variables(frames[0]["id"])["x"] == "3"
    assert client.stack_trace(thread, start=1, levels=1)[0]["name"] == "middle"

    stop = client.resume("stepOut", thread)
    assert stop["event"] == "stopped" and stop["body"]["reason"] == "step"
    assert frame_names(client, thread)[0] == "middle"

    client.call("setBreakpoints", {"source": {"path": str(source)}, "breakpoints": []})
    exited = client.continue_(thread)
    if exited["event"] == "stopped":  # the program raises SIGUSR1: lldb stops for it
        assert exited["body"]["reason"] == "exception", exited
        exited = client.continue_(thread)
    assert (exited["event"], exited.get("body")) == ("exited", {"exitCode": 0}), exited
    client.wait_event("terminated")
    client.assert_valid()


def test_function_breakpoint(client: DapClient, program: Path) -> None:
    session = start_session(client, program, function_breakpoints=["factorial"])
    assert session.function_breakpoints[0]["verified"] is True
    assert session.stop is not None and session.stop["body"]["reason"] in (
        "breakpoint",
        "function breakpoint",
    )
    frames = client.stack_trace(session.thread_id, levels=2)
    assert [f["name"] for f in frames] == ["factorial", "main"]
    assert client.scope_variables(frames[0]["id"])["n"] == "5"
    client.assert_valid()
