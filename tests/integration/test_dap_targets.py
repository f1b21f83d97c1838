"""The DAP adapter on real programs: attach, signals and crashes, data breakpoints,
runInTerminal, restart and pause."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.support.build import Builder, marker_line
from tests.support.dap_client import DapClient
from tests.support.dap_schema import require_schema
from tests.support.dap_session import alice_session, launch_arguments, start_session


@pytest.fixture
def dap(tmp_path: Path) -> Iterator[DapClient]:
    require_schema()
    with alice_session(stderr=tmp_path / "adapter.log") as client:
        yield client


def test_attach_pause_and_detach_leaves_it_running(dap: DapClient, builder: Builder) -> None:
    program = builder.build("longrun")
    target = subprocess.Popen([str(program)], stdout=subprocess.DEVNULL)
    try:
        dap.call("initialize", {"adapterID": "alice"})
        dap.call("attach", {"pid": target.pid})
        dap.call("configurationDone")
        assert dap.wait_event("process")["body"]["startMethod"] == "attach"
        assert not any(e["event"] == "stopped" for e in dap.events)  # attached, then resumed
        thread = dap.threads()[0]["id"]
        dap.call("pause", {"threadId": thread})
        stop = dap.wait_event("stopped")
        assert stop["body"]["reason"] == "pause"
        names = [f["name"] for f in dap.stack_trace(thread)]
        assert "main" in names
        assert dap.request("disconnect", {"terminateDebuggee": False})["success"]
        dap.close()
        assert target.poll() is None  # detached and running on
    finally:
        target.kill()
        target.wait()


def test_signal_and_crash_stop_as_exceptions(dap: DapClient, builder: Builder) -> None:
    program = builder.build("crash")
    dap.call("initialize", {"adapterID": "alice"})
    dap.call("launch", launch_arguments(program, args=["segv"]))
    dap.call("setExceptionBreakpoints", {"filters": ["signals"]})
    dap.call("configurationDone")
    stop = dap.wait_stop_or_exit()
    body = stop["body"]
    assert body["reason"] == "exception" and body["text"] == "SIGSEGV"
    info = dap.call("exceptionInfo", {"threadId": body["threadId"]})
    assert info["exceptionId"] == "SIGSEGV" and info["breakMode"] == "always"
    assert "0x10" in info["description"]
    frame = dap.stack_trace(body["threadId"], 0, 1)[0]
    assert frame["name"] == "crash_segv"
    assert frame["line"] == marker_line(builder.source("crash"), "segv")


def test_signals_filter(dap: DapClient, builder: Builder) -> None:
    program = builder.build("src_basic")
    dap.call("initialize", {"adapterID": "alice"})
    dap.call("launch", launch_arguments(program))
    dap.call("setExceptionBreakpoints", {"filters": ["signals"]})
    dap.call("configurationDone")
    stop = dap.wait_stop_or_exit()
    assert stop["body"]["reason"] == "exception" and stop["body"]["text"] == "SIGUSR1"
    dap.call("setExceptionBreakpoints", {"filters": []})
    assert dap.continue_(stop["body"]["threadId"])["event"] == "exited"


def test_data_breakpoint(dap: DapClient, builder: Builder) -> None:
    program = builder.build("watch")
    source = str(builder.source("watch"))
    session = start_session(dap, program, breakpoints={source: [marker_line(source, "counter")]})
    thread = session.thread_id
    frame = dap.stack_trace(thread, 0, 1)[0]
    globals_ref = next(s for s in dap.scopes(frame["id"]) if s["name"] == "Globals")[
        "variablesReference"
    ]
    info = dap.call(
        "dataBreakpointInfo", {"variablesReference": globals_ref, "name": "global_counter"}
    )
    assert info["dataId"] and "write" in info["accessTypes"]
    by_name = dap.call("dataBreakpointInfo", {"name": "g_u64", "frameId": frame["id"]})
    assert by_name["dataId"] and "8 bytes" in by_name["description"]
    set_ = dap.call(
        "setDataBreakpoints", {"breakpoints": [{"dataId": info["dataId"], "accessType": "write"}]}
    )
    (watch,) = set_["breakpoints"]
    assert watch["verified"]
    dap.call("setBreakpoints", {"source": {"path": source}, "breakpoints": []})
    stop = dap.continue_(thread)
    assert stop["body"]["reason"] == "data breakpoint"
    assert stop["body"]["hitBreakpointIds"] == [watch["id"]]
    frame = dap.stack_trace(thread, 0, 1)[0]
    value = dap.call(
        "evaluate", {"expression": "global_counter", "frameId": frame["id"], "context": "watch"}
    )
    assert value["result"] == "1"
    dap.call("setDataBreakpoints", {"breakpoints": []})
    assert dap.continue_(thread)["event"] == "exited"


def test_run_in_terminal(dap: DapClient, builder: Builder, tmp_path: Path) -> None:
    program = builder.build("showenv")
    captured = tmp_path / "terminal.txt"
    started = threading.Event()

    def run_in_terminal(arguments: Mapping[str, Any]) -> Mapping[str, Any]:
        with captured.open("wb") as out:
            process = subprocess.Popen(
                [str(a) for a in arguments["args"]], cwd=arguments.get("cwd") or None,
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip
        dap.terminal_processes.append(process)
        started.set()
        return {"processId": process.pid}

    dap.reverse_handlers["runInTerminal"] = run_in_terminal
    dap.call("initialize", {"adapterID": "alice", "supportsRunInTerminalRequest": True})
    arguments = launch_arguments(program, args=["in", "terminal"], console="integratedTerminal")
    dap.call("launch", arguments)
    dap.call("configurationDone")
    exited = dap.wait_event("exited")
    assert exited["body"]["exitCode"] == 0
    # The program may end before the client starts the relay: its output waits in the pty.
    assert started.wait(timeout=30)
    relay = dap.terminal_processes[0]
    assert relay.wait(timeout=30) == 0  # the relay ends with the program's terminal
    text = captured.read_bytes().decode(errors="replace")
    assert "arg[2]=terminal" in text and "to stderr" in text
    stdout = [e for e in dap.events if e["event"] == "output" and e["body"]["category"] == "stdout"]
    assert stdout == []  # it went to the terminal, not to the debug console


def test_restart_keeps_breakpoints(dap: DapClient, builder: Builder) -> None:
    program = builder.build("src_basic")
    source = str(builder.source("src_basic"))
    session = start_session(dap, program, breakpoints={source: [marker_line(source, "leaf")]})
    first_pid = dap.wait_event("process")["body"]["systemProcessId"]
    since = dap.mark()
    dap.call("restart", {"arguments": launch_arguments(program)})
    again = dap.wait_stop_or_exit(since)
    assert again["event"] == "stopped" and again["body"]["reason"] == "breakpoint"
    second_pid = dap.wait_event("process", since=since)["body"]["systemProcessId"]
    assert second_pid != first_pid
    assert not any(e["event"] in ("exited", "terminated") for e in dap.events[since:])
    assert session.breakpoints[source][0]["id"] in again["body"]["hitBreakpointIds"]


def test_terminate(dap: DapClient, builder: Builder) -> None:
    program = builder.build("longrun")
    start_session(dap, program, wait_stop=False)
    dap.wait_event("output")
    dap.call("terminate")
    assert dap.wait_event("exited")["body"]["exitCode"] == 128 + 9
    dap.wait_event("terminated")
