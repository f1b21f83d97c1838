"""tests/support/dap_client.py against a scripted adapter on the other end of a socket pair."""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.adapter_process import _alive
from tests.support.dap_client import DapClient, DapClosed, DapTimeout, RequestFailed
from tests.support.dap_schema import require_schema


class ScriptedAdapter:
    """The adapter side: reads framed requests, writes whatever the test tells it to."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.reader = sock.makefile("rb")
        self.seq = 0

    def send(self, message: dict[str, Any], seq: int | None = None) -> None:
        self.seq += 1
        message = dict(message, seq=self.seq if seq is None else seq)
        data = json.dumps(message).encode()
        self.sock.sendall(b"Content-Length: %d\r\n\r\n" % len(data) + data)

    def receive(self) -> dict[str, Any]:
        length = 0
        while (line := self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            if name == "Content-Length":
                length = int(value)
        message: dict[str, Any] = json.loads(self.reader.read(length))
        return message

    def answer(self, request: dict[str, Any], body: Any = None, success: bool = True) -> None:
        response = {
            "type": "response",
            "request_seq": request["seq"],
            "command": request["command"],
            "success": success,
        }
        if body is not None:
            response["body"] = body
        if not success:
            response["message"] = "refused"
        self.send(response)

    def event(self, name: str, body: Any = None) -> None:
        message: dict[str, Any] = {"type": "event", "event": name}
        if body is not None:
            message["body"] = body
        self.send(message)


@pytest.fixture
def pair() -> Iterator[tuple[DapClient, ScriptedAdapter]]:
    ours, theirs = socket.socketpair()
    client = DapClient(ours.makefile("rb"), ours.makefile("wb"), sock=ours, name="scripted")
    adapter = ScriptedAdapter(theirs)
    try:
        yield client, adapter
    finally:
        client.close(disconnect=False)
        adapter.reader.close()
        theirs.close()


def test_requests_match_responses_out_of_order(pair: tuple[DapClient, ScriptedAdapter]) -> None:
    client, adapter = pair
    first = client.send_request("threads")
    second = client.send_request("scopes", {"frameId": 1})
    got = [adapter.receive(), adapter.receive()]
    assert [m["seq"] for m in got] == [1, 2]
    assert got[1]["arguments"] == {"frameId": 1}
    adapter.answer(got[1], {"scopes": []})
    adapter.answer(got[0], {"threads": [{"id": 1, "name": "main"}]})
    assert client.response(first)["body"]["threads"][0]["id"] == 1
    assert client.response(second)["command"] == "scopes"
    assert client.problems() == []


def test_call_raises_on_failure_and_request_does_not(
    pair: tuple[DapClient, ScriptedAdapter],
) -> None:
    client, adapter = pair
    threading.Thread(target=lambda: adapter.answer(adapter.receive(), success=False)).start()
    with pytest.raises(RequestFailed, match="refused"):
        client.call("evaluate", {"expression": "x"})
    threading.Thread(target=lambda: adapter.answer(adapter.receive(), success=False)).start()
    assert client.request("evaluate", {"expression": "x"})["success"] is False


def test_timeout_names_the_command(pair: tuple[DapClient, ScriptedAdapter]) -> None:
    client, _ = pair
    with pytest.raises(DapTimeout, match="stackTrace"):
        client.request("stackTrace", {"threadId": 1}, timeout=0.2)
    with pytest.raises(DapTimeout, match="stopped"):
        client.wait_event("stopped", timeout=0.2)


def test_events_are_handed_out_once(pair: tuple[DapClient, ScriptedAdapter]) -> None:
    client, adapter = pair
    adapter.event("output", {"output": "a"})
    adapter.event("stopped", {"reason": "step", "threadId": 1})
    adapter.event("stopped", {"reason": "breakpoint", "threadId": 1})
    assert client.wait_event("stopped")["body"]["reason"] == "step"
    assert client.wait_event("stopped")["body"]["reason"] == "breakpoint"
    with pytest.raises(DapTimeout):
        client.wait_event("stopped", timeout=0.1)
    mark = client.mark()
    adapter.event("output", {"output": "b"})
    found = client.wait_event("output", since=mark)
    assert found["body"]["output"] == "b"
    assert client.wait_event("output", lambda e: e["body"]["output"] == "a")["body"]
    assert [e["event"] for e in client.events] == ["output", "stopped", "stopped", "output"]


def test_stop_or_exit_after_a_resume(pair: tuple[DapClient, ScriptedAdapter]) -> None:
    client, adapter = pair

    def adapter_side() -> None:
        request = adapter.receive()
        adapter.event("exited", {"exitCode": 3})  # may come before the response
        adapter.answer(request, {"allThreadsContinued": True})

    threading.Thread(target=adapter_side).start()
    assert client.continue_(1)["body"] == {"exitCode": 3}


def test_reverse_requests(pair: tuple[DapClient, ScriptedAdapter]) -> None:
    client, adapter = pair
    adapter.send({"type": "request", "command": "startDebugging", "arguments": {}})
    refused = adapter.receive()
    assert refused["success"] is False and refused["request_seq"] == 1

    client.reverse_handlers["runInTerminal"] = lambda arguments: {"processId": 42}
    adapter.send({"type": "request", "command": "runInTerminal", "arguments": {"args": ["x"]}})
    answered = adapter.receive()
    assert answered["success"] is True and answered["body"] == {"processId": 42}
    assert answered["request_seq"] == 2 and answered["seq"] == 2


def test_run_in_terminal_starts_and_reaps_the_program(
    pair: tuple[DapClient, ScriptedAdapter],
) -> None:
    client, adapter = pair
    client.enable_run_in_terminal()
    arguments = {
        "kind": "integrated",
        "cwd": "/",
        "args": [sys.executable, "-c", "import time; time.sleep(60)"],
        "env": {"ALICE_TEST": "1", "HOME": None},
    }
    adapter.send({"type": "request", "command": "runInTerminal", "arguments": arguments})
    answer = adapter.receive()
    pid = answer["body"]["processId"]
    assert _alive(pid)
    environ = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
    assert b"ALICE_TEST=1" in environ and not any(v.startswith(b"HOME=") for v in environ)
    client.close(disconnect=False)
    assert not _alive(pid)


def test_sequence_errors_are_recorded(pair: tuple[DapClient, ScriptedAdapter]) -> None:
    client, adapter = pair
    adapter.event("initialized")
    adapter.event(
        "output",
        {"output": "x"},
    )
    adapter.send({"type": "event", "event": "output", "body": {"output": "y"}}, seq=7)
    adapter.send({"type": "response", "request_seq": 99, "command": "next", "success": True})
    client.wait_event("output", lambda e: e["body"]["output"] == "y")
    deadline = time.monotonic() + 5
    while len(client.seq_errors) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    texts = [e.text for e in client.seq_errors]
    assert texts == ["seq 7, expected 3", "seq 4, expected 8", "response to no pending request"]
    with pytest.raises(AssertionError, match="3 protocol problems"):
        client.assert_valid()


def test_schema_violations_are_recorded() -> None:
    schema = require_schema()
    ours, theirs = socket.socketpair()
    client = DapClient(ours.makefile("rb"), ours.makefile("wb"), sock=ours, schema=schema)
    adapter = ScriptedAdapter(theirs)
    try:
        adapter.event("stopped", {"threadId": 1})  # no reason
        adapter.event("stopped", {"reason": "step", "threadId": 1})
        client.wait_event("stopped")
        client.wait_event("stopped")
        assert [str(v) for _, v in client.violations] == [
            "StoppedEvent body: 'reason' is a required property"
        ]
    finally:
        client.close(disconnect=False)
        theirs.close()


def test_closed_stream_wakes_waiters(pair: tuple[DapClient, ScriptedAdapter]) -> None:
    client, adapter = pair
    seq = client.send_request("threads")
    adapter.sock.shutdown(socket.SHUT_RDWR)
    with pytest.raises(DapClosed):
        client.response(seq, timeout=10)
    with pytest.raises(DapClosed):
        client.wait_event("stopped", timeout=10)
    assert client.closed


def test_close_kills_the_adapter_and_its_children(tmp_path: Any) -> None:
    # The "adapter" starts a grandchild in the background, as lldb-vscode starts lldb-server.
    pids = tmp_path / "pids"
    script = f"sleep 60 & echo $! > {pids}; exec sleep 60"
    client = DapClient.spawn(["sh", "-c", script], name="sleeper")
    deadline = time.monotonic() + 10
    while not (pids.exists() and pids.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.01)
    grandchild = int(pids.read_text())
    assert _alive(grandchild)
    client.close(disconnect=False)
    assert client.adapter is not None and client.adapter.popen.returncode is not None
    assert not _alive(grandchild)
    with pytest.raises(ChildProcessError):
        os.waitpid(client.adapter.pid, os.WNOHANG)  # already reaped


def test_close_kills_what_outlived_the_adapter(tmp_path: Any) -> None:
    # The "adapter" exits at once, its background child is reparented: found by session.
    pids = tmp_path / "pids"
    client = DapClient.spawn(["sh", "-c", f"sleep 60 & echo $! > {pids}"], name="quitter")
    assert client.adapter is not None
    client.adapter.popen.wait(timeout=10)
    orphan = int(pids.read_text())
    assert _alive(orphan)
    client.close(disconnect=False)
    assert not _alive(orphan)
