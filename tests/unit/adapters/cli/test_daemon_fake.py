"""The daemon in this process over the fake debugger: calls with the current session filled
in, text renderings, buffered output read by cursor, status, shutdown and the idle exit."""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from aliceserver.adapters.cli.client import Client
from aliceserver.adapters.cli.daemon import Daemon
from aliceserver.adapters.cli.paths import DaemonPaths, prepare
from tests.support.fake_debugger import FakeDebugger


class Running:
    def __init__(self, idle: float) -> None:
        self.paths = prepare(tempfile.mkdtemp(prefix="as-"))  # short: a socket path is limited
        self.daemon = Daemon(self.paths, FakeDebugger, idle_timeout=idle)
        self.daemon.bind()
        self.thread = threading.Thread(target=self.daemon.serve, args=(False,), daemon=True)
        self.thread.start()
        self.client = Client(self.paths)

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        reply = self.client.request({"op": "call", "tool": tool, "arguments": arguments}, start=False)
        assert reply is not None and reply["ok"]
        return reply

    def end(self) -> None:
        self.daemon.stop("test over")
        self.thread.join(timeout=30)
        for name in os.listdir(self.paths.directory):
            os.unlink(os.path.join(self.paths.directory, name))
        os.rmdir(self.paths.directory)


@pytest.fixture
def running(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Running]:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    server = Running(idle=600)
    try:
        yield server
    finally:
        server.end()


def test_calls_use_the_last_started_session_and_come_rendered(running: Running) -> None:
    first = running.call("debug_launch", program="/opt/fake/prog", breakpoints=["helper"])
    assert first["data"]["session"] == "prog-1" and not first["is_error"]
    running.call("debug_launch", program="/opt/fake/prog")
    stopped = running.call("debug_continue", timeout=0)  # prog-2, the current one
    assert stopped["data"]["session"] == "prog-2"
    hit = running.call("debug_continue", session="prog-1")
    assert hit["text"].startswith("prog-1: stopped (breakpoint 1) in helper")
    error = running.call("debug_select", down=3, session="prog-1")
    assert error["is_error"] and error["text"].startswith("error NO_FRAME:")

    output = running.client.request({"op": "output"})
    assert output is not None
    texts = [e["text"] for e in output["entries"] if e["kind"] == "stdout"]
    assert texts == ["hello\n", "hello\n"]
    again = running.client.request({"op": "output"})
    assert again is not None and again["entries"] == []  # read once
    tail = running.client.request({"op": "output", "tail": 1, "session": "prog-1"})
    assert tail is not None and tail["text"] == "hello\n"

    status = running.client.request({"op": "status"})
    assert status is not None and status["current_session"] == "prog-2"
    assert [s["id"] for s in status["sessions"]] == ["prog-1", "prog-2"]


def test_idle_exit_removes_the_socket_and_pid_file() -> None:
    server = Running(idle=0.2)
    paths: DaemonPaths = server.paths
    assert os.path.exists(paths.pid_file)
    server.thread.join(timeout=60)
    assert not server.thread.is_alive()
    assert server.daemon.stop_reason.startswith("idle")
    assert not os.path.exists(paths.socket) and not os.path.exists(paths.pid_file)
    assert server.client.request({"op": "status"}, start=False) is None
    server.end()


def test_shutdown_on_request(running: Running) -> None:
    reply = running.client.request({"op": "shutdown"}, start=False)
    assert reply is not None and reply["stopping"]
    running.thread.join(timeout=60)
    assert running.daemon.stop_reason == "asked to shut down"
