"""The DAP adapter on a program behind a real gdbserver: launch/attach with `target`
(or cpptools' `miDebuggerServerAddress`). The stops, frames and values must be lldb-vscode's
on a local run of the same program (conformance/dap_diff's recorder and comparison), and
ending the session either kills the program or leaves it to the stub."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.dap_diff import (
    TIMEOUT,
    DapScenario,
    DapStop,
    Recorder,
    by_name,
    compare,
    run_side,
    sides,
)
from tests.support.adapter_process import alice_argv
from tests.support.build import Builder, marker_line
from tests.support.dap_client import DapClient, RequestFailed
from tests.support.dap_schema import require_schema
from tests.support.dap_session import Session, alice_session, start_session
from tests.support.gdbserver import GdbServer, assert_gone, gdbserver

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def dap(tmp_path: Path) -> Iterator[DapClient]:
    require_schema()
    with alice_session(stderr=tmp_path / "adapter.log") as client:
        yield client


def _remote_arguments(request: str, program: Path, address: str, key: str = "target", **extra: Any) -> dict[str, Any]:
    return {"type": "alice", "request": request, "name": f"{request} remote", "program": str(program),
            key: address, **extra}  # fmt: skip


def _start(client: DapClient, arguments: dict[str, Any], breakpoints: dict[str | Path, list[int]] | None = None,
           wait_stop: bool = True) -> Session:  # fmt: skip
    """start_session, with the request the arguments name (attach or launch)."""
    if arguments["request"] == "launch":
        return start_session(client, Path(arguments["program"]), breakpoints=breakpoints, launch=arguments,
                             wait_stop=wait_stop, timeout=TIMEOUT)  # fmt: skip
    client.call("initialize", {"adapterID": "alice", "linesStartAt1": True, "columnsStartAt1": True})
    attach = client.send_request("attach", arguments)
    client.wait_event("initialized", timeout=TIMEOUT)
    for path, lines in (breakpoints or {}).items():
        client.call("setBreakpoints", {"source": {"path": str(path)}, "breakpoints": [{"line": n} for n in lines]})
    since = client.mark()
    client.call("configurationDone")
    attached = client.response(attach, TIMEOUT)
    if not attached.get("success"):
        raise RequestFailed(attached)
    stop = client.wait_stop_or_exit(since, TIMEOUT) if wait_stop else None
    return Session({}, attached, {}, [], stop)


def _run_remote(scenario: DapScenario, builder: Builder, arguments: dict[str, Any]) -> list[DapStop]:
    """`scenario` in our adapter, started with `arguments` (on a stub), as run_side runs it."""
    program = builder.build(scenario.program)
    source = builder.source(scenario.program)
    client = DapClient.spawn(alice_argv(), cwd=program.parent, validate=True, name="ours")
    stops: list[DapStop] = []
    try:
        lines = [marker_line(source, b[1:]) for b in scenario.breakpoints if b.startswith("@")]
        session = _start(client, arguments, {source: lines} if lines else {})
        recorder = Recorder(client, False, scenario.compare_values)
        event = session.stop
        for step in range(len(scenario.actions) + 1):
            assert event is not None
            stops.append(recorder.stop(event))
            if event.get("event") != "stopped" or step == len(scenario.actions):
                break
            event = client.resume(scenario.actions[step], int(event["body"]["threadId"]), TIMEOUT)
        assert not client.problems(), client.problems()
    finally:
        client.close()
    return stops


def _lldb_local(scenario: DapScenario, builder: Builder) -> list[DapStop]:
    lldb, _ = sides()
    if lldb is None:
        pytest.skip("lldb-vscode-16 not found (Debian package lldb-16)")
    program = builder.build(scenario.program)
    stops, _ = run_side(lldb, scenario, program, builder.source(scenario.program))
    assert stops, "lldb-vscode never stopped: the scenario is broken"
    return stops


@pytest.mark.parametrize("key", ["target", "miDebuggerServerAddress"])
def test_attach_to_gdbserver_steps_like_lldb_vscode_locally(builder: Builder, key: str) -> None:
    require_schema()
    scenario = by_name(["dap-step"])[0]
    lldb = _lldb_local(scenario, builder)
    program = builder.build(scenario.program)
    with gdbserver(program) as server:
        ours = _run_remote(scenario, builder, _remote_arguments("attach", program, server.address, key))
    outcome = compare(scenario, lldb, ours, builder.source(scenario.program).name)
    assert not outcome.differences, "\n".join(str(d) for d in outcome.differences)
    assert [stop.reason for stop in ours] == ["breakpoint", "step", "step", "step", "step"]


def test_launch_runs_the_program_on_a_multi_gdbserver_like_lldb_vscode(builder: Builder) -> None:
    require_schema()
    scenario = by_name(["dap-loop"])[0]
    lldb = _lldb_local(scenario, builder)
    program = builder.build(scenario.program)
    with gdbserver(None, multi=True) as server:
        ours = _run_remote(scenario, builder, _remote_arguments("launch", program, server.address))
        assert server.process.poll() is None  # --multi: it serves on
    outcome = compare(scenario, lldb, ours, builder.source(scenario.program).name)
    assert not outcome.differences, "\n".join(str(d) for d in outcome.differences)
    assert ours[-1].event == "exited" and ours[-1].reason == "0"


def _stopped_at(dap: DapClient, server: GdbServer, program: Path, source: Path, marker: str,
                request: str = "attach", **extra: Any) -> int:  # fmt: skip
    session = _start(dap, _remote_arguments(request, program, server.address, **extra),
                     {source: [marker_line(source, marker)]})
    assert session.stop is not None and session.stop["body"]["reason"] == "breakpoint", session.stop
    return session.thread_id


def test_inspection_and_evaluate_over_the_stub(dap: DapClient, builder: Builder) -> None:
    program, source = builder.build("mi_prog"), builder.source("mi_prog")
    with gdbserver(program) as server:
        thread = _stopped_at(dap, server, program, source, "add_body")
        assert server.inferior_pid is not None
        assert [t["id"] for t in dap.threads()] == [server.inferior_pid]
        frames = dap.stack_trace(thread)
        assert [f["name"] for f in frames[:2]] == ["add", "main"]
        assert frames[0]["source"]["path"] == str(source)
        assert dap.scope_variables(frames[0]["id"], "Arg") == {"a": "0", "b": "10"}
        value = dap.call("evaluate", {"expression": "a + b * 2", "frameId": frames[0]["id"], "context": "watch"})
        assert value["result"] == "20"
        main_locals = dap.scope_variables(frames[1]["id"])
        assert main_locals["total"] == "0" and main_locals["i"] == "0"
        out = dap.resume("stepOut", thread)
        assert out["body"]["reason"] == "step"
        assert dap.stack_trace(thread, 0, 1)[0]["line"] == marker_line(source, "loop")
        assert dap.request("disconnect", {"terminateDebuggee": True})["success"]
        assert server.process.wait(timeout=20) is not None  # its only program died: it ends
        assert_gone(server.inferior_pid)


def test_disconnect_without_terminate_leaves_the_program_to_the_stub(builder: Builder, tmp_path: Path) -> None:
    require_schema()
    program, source = builder.build("mi_prog"), builder.source("mi_prog")
    with gdbserver(program) as server:
        assert server.inferior_pid is not None
        first = DapClient.spawn(alice_argv(), validate=True, stderr=tmp_path / "first.log")
        try:
            _stopped_at(first, server, program, source, "loop")
            assert first.request("disconnect", {"terminateDebuggee": False})["success"]
        finally:
            first.close(disconnect=False)
        assert server.process.poll() is None and os.path.exists(f"/proc/{server.inferior_pid}")
        second = DapClient.spawn(alice_argv(), validate=True, stderr=tmp_path / "second.log")
        try:  # the stub kept it where the first session left it
            session = _start(second, _remote_arguments("attach", program, server.address, stopOnEntry=True))
            assert session.stop is not None and session.stop["body"]["reason"] == "pause"
            top = second.stack_trace(session.thread_id, 0, 1)[0]
            assert (top["name"], top["line"]) == ("main", marker_line(source, "loop"))
            assert second.request("disconnect", {})["success"]  # attach: leaves it again
        finally:
            second.close(disconnect=False)
        assert server.process.poll() is None
        second.assert_valid()


def test_pause_and_disconnect_while_running(dap: DapClient, builder: Builder) -> None:
    program = builder.build("longrun")
    with gdbserver(program) as server:
        assert server.inferior_pid is not None
        _start(dap, _remote_arguments("attach", program, server.address), wait_stop=False)
        time.sleep(0.5)  # in its loop
        dap.call("pause", {"threadId": server.inferior_pid})
        stop = dap.wait_event("stopped")
        assert stop["body"]["reason"] == "pause"
        names = [f["name"] for f in dap.stack_trace(server.inferior_pid)]
        assert "main" in names
        dap.call("continue", {"threadId": server.inferior_pid})
        assert dap.request("disconnect", {"terminateDebuggee": True})["success"]  # paused, then killed
        assert server.process.wait(timeout=20) is not None
        assert_gone(server.inferior_pid)


def test_a_stub_that_goes_away_ends_the_session(dap: DapClient, builder: Builder) -> None:
    program = builder.build("longrun")
    with gdbserver(program) as server:
        _start(dap, _remote_arguments("attach", program, server.address), wait_stop=False)
        time.sleep(0.5)  # in its loop, past the loader's trap, where the stub's end is what we test
        server.process.send_signal(signal.SIGTERM)
        dap.wait_event("terminated")
        said = [e["body"]["output"] for e in dap.events if e["event"] == "output"]
        assert "Remote connection closed.\n" in said, said
        assert not any(e["event"] == "exited" for e in dap.events)  # no exit code to tell
        assert dap.request("threads", {})["success"]  # and the adapter serves on


@pytest.mark.timeout(180)
def test_a_stub_that_dies_as_the_program_starts_ends_the_session(builder: Builder, tmp_path: Path) -> None:
    """SIGTERM to gdbserver at once after configurationDone: the loader's trap may be being
    handled as the link breaks (a race: half of the runs once ended in a `stopped` event
    with no breakpoint instead), yet every run ends with the connection closed."""
    require_schema()
    program = builder.build("longrun")
    for attempt in range(12):
        with gdbserver(program) as server:
            client = DapClient.spawn(alice_argv(), validate=True, stderr=tmp_path / f"adapter{attempt}.log")
            try:
                _start(client, _remote_arguments("attach", program, server.address), wait_stop=False)
                server.process.send_signal(signal.SIGTERM)
                client.wait_event("terminated", timeout=15)
                said = [e["body"]["output"] for e in client.events if e["event"] == "output"]
                assert "Remote connection closed.\n" in said, (attempt, said)
                assert not any(e["event"] == "stopped" for e in client.events), attempt
                assert client.request("threads", {})["success"]
            finally:
                client.close()
            client.assert_valid()


def test_attach_with_a_pid_has_a_multi_gdbserver_attach_to_it(dap: DapClient, builder: Builder) -> None:
    program, source = builder.build("longrun"), builder.source("longrun")
    running = subprocess.Popen([str(program)], stdout=subprocess.DEVNULL)
    try:
        with gdbserver(None, multi=True) as server:
            session = _start(dap, _remote_arguments("attach", program, server.address, pid=running.pid),
                             {source: [marker_line(source, "tick")]})  # fmt: skip
            assert session.stop is not None and session.stop["body"]["reason"] == "breakpoint", session.stop
            assert session.thread_id == running.pid
            assert [f["name"] for f in dap.stack_trace(session.thread_id)[:2]] == ["tick", "main"]
            assert dap.request("disconnect", {"terminateDebuggee": True})["success"]
            assert running.wait(timeout=20) is not None
    finally:
        running.kill()
        running.wait()


def test_launch_with_source_map_finds_the_moved_sources(dap: DapClient, builder: Builder, tmp_path: Path) -> None:
    program, source = builder.build("mi_prog"), builder.source("mi_prog")
    moved = tmp_path / "moved"
    moved.mkdir()
    (moved / source.name).write_text(source.read_text())
    with gdbserver(program) as server:
        session = _start(dap, _remote_arguments("launch", program, server.address,
                                                sourceMap=[[str(source.parent), str(moved)]]),
                         {moved / source.name: [marker_line(source, "add_body")]})
        assert session.stop is not None and session.stop["body"]["reason"] == "breakpoint", session.stop
        assert dap.stack_trace(session.thread_id, 0, 1)[0]["source"]["path"] == str(moved / source.name)
        restarted = dap.request("restart", {})
        assert not restarted["success"] and "on a stub" in restarted["message"]
        assert dap.request("terminate", {})["success"]
        assert dap.wait_event("terminated")
        assert server.inferior_pid is not None
        assert_gone(server.inferior_pid, grace=10)  # killed (gdbserver, in extended mode, serves on)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_bad_targets_are_error_replies_and_the_adapter_keeps_serving(dap: DapClient, builder: Builder) -> None:
    program = builder.build("mi_prog")
    dap.call("initialize", {"adapterID": "alice"})
    port = _closed_port()
    refused = dap.request("attach", _remote_arguments("attach", program, f"127.0.0.1:{port}"))
    assert not refused["success"] and refused["message"] == f"127.0.0.1:{port}: Connection refused."
    garbage = dap.request("attach", _remote_arguments("attach", program, "no-port-here"))
    assert not garbage["success"] and "no-port-here" in garbage["message"]
    empty = dap.request("launch", _remote_arguments("launch", program, ""))
    assert not empty["success"] and "'target'" in empty["message"]
    with gdbserver(None, multi=True) as server:  # nothing to attach to (and gdbserver ends)
        nothing = dap.request("attach", _remote_arguments("attach", program, server.address))
        assert not nothing["success"] and "debugs no process" in nothing["message"]
    with gdbserver(None, multi=True) as server:  # a program it cannot run
        missing = dap.request("launch", _remote_arguments("launch", program.parent / "no-such-program",
                                                         server.address))  # fmt: skip
        assert not missing["success"] and "could not run" in missing["message"], missing
    with gdbserver(program) as server:  # and after all that, a good one works
        dap.call("attach", _remote_arguments("attach", program, server.address, stopOnEntry=True))
        dap.call("configurationDone")
        stop = dap.wait_event("stopped")
        assert stop["body"]["threadId"] == server.inferior_pid
        assert dap.request("disconnect", {"terminateDebuggee": True})["success"]
