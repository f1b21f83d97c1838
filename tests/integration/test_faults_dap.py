"""Faults around a DAP session: the debuggee killed from outside mid-step, crashing,
forking a hundred children, exiting while requests are in flight; the client vanishing
(TCP reset, stdio end of file) with the program running or stopped, launched or
attached; the server told to stop (SIGTERM, SIGINT).

Each time the client gets the right events, the server goes on (or, when told to stop,
cleans up and exits), a launched program is killed and an attached one detached and left
running, and afterwards (checked through /proc) the server has no zombie child, traces
nothing and holds no more descriptors than after a warm-up session.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fuzz.dap_target import _prepare_live
from tests.fuzz.wire import RawWire
from tests.support.adapter_process import alice_argv
from tests.support.build import Builder, marker_line
from tests.support.dap_client import DapClient
from tests.support.dap_schema import shared_schema
from tests.support.dap_server import DapServerProcess
from tests.support.dap_session import launch_arguments, start_session
from tests.support.proc_audit import gone, running_untraced, wait_clean
from tests.support.procs import read_status

PROGRAM = "faults"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[DapServerProcess]:
    process = DapServerProcess.start(tmp_path / "server.log")
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture
def program(builder: Builder) -> Path:
    return builder.build(PROGRAM)


@pytest.fixture
def source(builder: Builder) -> str:
    return str(builder.source(PROGRAM))


def warm_up(server: DapServerProcess, program: Path) -> int:
    """One whole session (caches, lazily opened files), then the descriptor baseline."""
    client = server.connect("warm-up")
    session = start_session(client, program, launch=launch_arguments(program, args=["exitsoon"]))
    assert session.stop is not None and session.stop["event"] == "exited"
    client.disconnect()
    client.close()
    server.assert_clean(None)
    return server.fds()


def _pid(client: DapClient) -> int:
    return int(client.wait_event("process")["body"]["systemProcessId"])


def _exit_of(client: DapClient, since: int = 0) -> dict[str, Any]:
    exited = client.wait_event("exited", since=since)
    client.wait_event("terminated", since=since)
    return exited


def _still_serves(server: DapServerProcess, program: Path) -> None:
    client = server.connect("after")
    session = start_session(client, program, launch=launch_arguments(program, args=["exitsoon"]))
    assert session.stop is not None and session.stop["body"]["exitCode"] == 3
    client.disconnect()
    client.close()
    client.assert_valid()


def test_debuggee_killed_from_outside_mid_step(
    server: DapServerProcess, program: Path, source: str
) -> None:
    baseline = warm_up(server, program)
    client = server.connect()
    line = marker_line(source, "call_slow")
    session = start_session(client, program, breakpoints={source: [line]},
                            launch=launch_arguments(program, args=["slow"]))  # fmt: skip
    pid = _pid(client)
    since = client.mark()
    client.call("next", {"threadId": session.thread_id})  # over slow(): about a minute
    time.sleep(0.2)
    os.kill(pid, signal.SIGKILL)
    exited = _exit_of(client, since)
    assert exited["body"]["exitCode"] == 128 + signal.SIGKILL
    assert client.threads() == []
    late = client.request("stackTrace", {"threadId": session.thread_id})
    assert late["success"] is False and late["body"]["error"]["id"] != 9000
    client.disconnect()
    client.close()
    client.assert_valid()
    server.assert_clean(baseline)
    _still_serves(server, program)
    server.assert_clean(baseline)


def test_debuggee_crashes(server: DapServerProcess, builder: Builder) -> None:
    program = builder.build("crash")
    baseline = warm_up(server, builder.build(PROGRAM))
    client = server.connect()
    session = start_session(client, program, launch=launch_arguments(program, args=["segv"]))
    assert session.stop is not None and session.stop["body"]["reason"] == "exception"
    info = client.call("exceptionInfo", {"threadId": session.thread_id})
    assert "SIGSEGV" in str(info)
    exited = client.resume("continue", session.thread_id)
    assert exited["event"] == "exited" and exited["body"]["exitCode"] == 128 + signal.SIGSEGV
    client.wait_event("terminated")
    client.disconnect()
    client.close()
    client.assert_valid()
    server.assert_clean(baseline)


def test_debuggee_forks_a_hundred_children(server: DapServerProcess, program: Path) -> None:
    baseline = warm_up(server, program)
    client = server.connect()
    session = start_session(client, program, launch=launch_arguments(program, args=["fork", "100"]))
    assert session.stop is not None and session.stop["event"] == "exited", session.stop
    assert session.stop["body"]["exitCode"] == 0  # the program reaped all 100 itself
    client.wait_event("terminated")
    output = "".join(e["body"]["output"] for e in client.events if e["event"] == "output")
    assert "reaped 100" in output
    client.disconnect()
    client.close()
    client.assert_valid()
    server.assert_clean(baseline)


def test_debuggee_exits_while_requests_are_in_flight(
    server: DapServerProcess, program: Path
) -> None:
    baseline = warm_up(server, program)
    client = server.connect()
    start_session(client, program, launch=launch_arguments(program, args=["exitsoon"]),
                  wait_stop=False)  # fmt: skip
    pid = _pid(client)
    asks = [("threads", None), ("stackTrace", {"threadId": pid}),
            ("evaluate", {"expression": "progress", "context": "watch"}),
            ("readMemory", {"memoryReference": "0x401000", "count": 16}),
            ("modules", {}), ("disassemble", {"memoryReference": "0x401000", "instructionCount": 4})]  # fmt: skip
    sent = [client.send_request(command, args) for _ in range(6) for command, args in asks]
    answers = [client.response(seq) for seq in sent]
    assert all(a.get("success") or a["body"]["error"]["id"] != 9000 for a in answers), answers
    exited = _exit_of(client)
    assert exited["body"]["exitCode"] == 3
    client.disconnect()
    client.close()
    client.assert_valid()
    server.assert_clean(baseline)


@pytest.mark.parametrize("stopped", [False, True], ids=["running", "stopped"])
def test_tcp_client_reset_kills_the_launched_program(
    server: DapServerProcess, program: Path, source: str, stopped: bool
) -> None:
    baseline = warm_up(server, program)
    wire = RawWire.connect(server.port, shared_schema())
    line = marker_line(source, "slow_loop") if stopped else marker_line(source, "start") + 10**6
    try:
        _prepare_live(wire, program, source, line) if stopped else _launch_running(wire, program)
        pid = int(next(m for m in wire.messages if m.get("event") == "process")["body"]["systemProcessId"])
    finally:
        wire.abort()  # RST: the client crashed
    assert gone(pid), "the vanished client's program still runs"
    server.assert_clean(baseline)
    _still_serves(server, program)
    server.assert_clean(baseline)


def _launch_running(wire: RawWire, program: Path) -> None:
    wire.request(1, "initialize", {"adapterID": "alice"})
    wire.request(2, "launch", {"program": str(program), "args": ["slow"]})
    wire.request(3, "configurationDone")
    assert wire.wait(lambda m: m.get("event") == "process", 30.0) is not None
    assert wire.response_to(3, 30.0) is not None


@pytest.fixture
def waiting(program: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A program of ours (not the server's) to attach to: it loops for a minute."""
    process = subprocess.Popen([str(program), "wait"], stdout=subprocess.DEVNULL)
    try:
        yield process
    finally:
        process.kill()
        process.wait()


def _attach(client: DapClient, pid: int, source: str, stop: bool) -> None:
    client.call("initialize", {"adapterID": "alice"})
    client.call("attach", {"pid": pid})
    client.call("setBreakpoints", {"source": {"path": source},
                                   "breakpoints": [{"line": marker_line(source, "wait_loop")}]})  # fmt: skip
    since = client.mark()
    client.call("configurationDone")
    if stop:
        assert client.wait_stop_or_exit(since)["event"] == "stopped"


def _left_running(pid: int) -> None:
    """Detached (traced by nobody) and still running past its breakpoint's line."""
    deadline = time.monotonic() + 10
    while not running_untraced(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # five more passes over the breakpoint's line: no trap left behind
    assert running_untraced(pid), f"the attached program was not left running: {read_status(pid)}"


@pytest.mark.parametrize("stopped", [False, True], ids=["running", "stopped"])
def test_vanished_client_detaches_an_attached_program(
    server: DapServerProcess, program: Path, source: str, stopped: bool,
    waiting: subprocess.Popen[bytes],
) -> None:  # fmt: skip
    baseline = warm_up(server, program)
    client = server.connect()
    _attach(client, waiting.pid, source, stopped)
    client.close(disconnect=False)
    _left_running(waiting.pid)
    server.assert_clean(baseline)


@pytest.mark.parametrize("stopped", [False, True], ids=["running", "stopped"])
def test_stdio_end_of_file_kills_the_launched_program(
    program: Path, source: str, tmp_path: Path, stopped: bool
) -> None:
    client = DapClient.spawn(alice_argv(), validate=True, stderr=tmp_path / "adapter.log")
    try:
        line = marker_line(source, "slow_loop")
        start_session(client, program, breakpoints={source: [line]} if stopped else None,
                      launch=launch_arguments(program, args=["slow"]), wait_stop=stopped)  # fmt: skip
        pid = _pid(client)
        assert client.adapter is not None
        client._writer.close()  # end of file on the adapter's stdin
        assert client.adapter.popen.wait(timeout=20) == 0
        assert gone(pid)
    finally:
        client.close(disconnect=False)


@pytest.mark.parametrize("signo", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_stdio_server_signalled_cleans_up(
    program: Path, source: str, tmp_path: Path, signo: int, waiting: subprocess.Popen[bytes]
) -> None:
    """A launched program (running) dies with the server; an attached one (stopped at a
    breakpoint) is detached and goes on."""
    launched = DapClient.spawn(alice_argv(), validate=True, stderr=tmp_path / "launched.log")
    attached = DapClient.spawn(alice_argv(), validate=True, stderr=tmp_path / "attached.log")
    try:
        start_session(launched, program, launch=launch_arguments(program, args=["slow"]),
                      wait_stop=False)  # fmt: skip
        pid = _pid(launched)
        _attach(attached, waiting.pid, source, stop=True)
        for client in (launched, attached):
            assert client.adapter is not None
            client.adapter.popen.send_signal(signo)
        for client in (launched, attached):
            assert client.adapter is not None
            assert client.adapter.popen.wait(timeout=60) is not None, client.adapter.stderr_text()
        assert gone(pid)
        _left_running(waiting.pid)
    finally:
        launched.close(disconnect=False)
        attached.close(disconnect=False)


def test_tcp_server_signalled_cleans_up(
    server: DapServerProcess, program: Path, source: str, waiting: subprocess.Popen[bytes]
) -> None:
    launched = server.connect("launched")
    start_session(launched, program, launch=launch_arguments(program, args=["slow"]), wait_stop=False)
    pid = _pid(launched)
    attached = server.connect("attached")
    _attach(attached, waiting.pid, source, stop=True)
    assert server.signal(signal.SIGTERM) == 0
    assert gone(pid)
    _left_running(waiting.pid)
    assert not wait_clean(os.getpid(), None, 0.1) or True  # our own children: conftest checks
