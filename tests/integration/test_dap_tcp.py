"""`aliceserver --adapter dap --port N`: independent sessions on one listener."""

from __future__ import annotations

import os
import time
from pathlib import Path

from tests.support.adapter_process import alice_argv, free_port
from tests.support.build import Builder, marker_line
from tests.support.dap_client import DapClient
from tests.support.dap_schema import require_schema
from tests.support.dap_session import start_session

SRC = "src_basic"


def _gone(pid: int, patience: float = 10.0) -> bool:
    """Whether `pid` disappears (or is a zombie) within `patience` seconds."""
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return True
        if stat[stat.rindex(")") + 2] == "Z":
            return True
        time.sleep(0.05)
    return False


def test_two_sessions_at_once_and_the_listener_goes_on(builder: Builder, tmp_path: Path) -> None:
    require_schema()
    program = builder.build(SRC)
    source = str(builder.source(SRC))
    line = marker_line(source, "leaf")
    port = free_port()
    log = tmp_path / "adapter.log"
    argv = alice_argv("--port", str(port), "--log-level", "INFO")
    first = DapClient.spawn_tcp(argv, port, validate=True, stderr=log)
    try:
        second = DapClient.connect("127.0.0.1", port, validate=True, name="second")
        try:
            one = start_session(first, program, breakpoints={source: [line]})
            two = start_session(second, program, breakpoints={source: [line]})
            pids = [c.wait_event("process")["body"]["systemProcessId"] for c in (first, second)]
            assert pids[0] != pids[1]
            # Each session has its own debuggee and its own handles.
            for client, session in ((first, one), (second, two)):
                frame = client.stack_trace(session.thread_id, 0, 1)[0]
                assert frame["name"] == "leaf"
                value = client.call(
                    "evaluate", {"expression": "x", "frameId": frame["id"], "context": "watch"}
                )
                assert value["result"] == "3"
            first.call("setBreakpoints", {"source": {"path": source}, "breakpoints": []})
            assert first.continue_(one.thread_id)["event"] == "exited"
            # The second client vanishes without disconnect: its debuggee is killed.
            second.close(disconnect=False)
            assert _gone(pids[1]), "the vanished client's debuggee is still running"
        finally:
            second.close()
        third = DapClient.connect("127.0.0.1", port, validate=True, name="third")
        try:
            assert third.call("initialize", {"adapterID": "alice"})[
                "supportsConfigurationDoneRequest"
            ]
            assert third.threads() == []
        finally:
            third.close()
        for client in (second, third):
            client.assert_valid()
        assert "listening on 127.0.0.1:%d" % port in log.read_text()
    finally:
        first.close()
    first.assert_valid()


def test_non_loopback_host_warns(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "adapter.log"
    client = DapClient.spawn_tcp(
        alice_argv("--port", str(port), "--host", "0.0.0.0"), port, stderr=log
    )
    try:
        client.call("initialize", {"adapterID": "alice"})
    finally:
        client.close()
    text = log.read_text()
    assert "WARNING" in text and "other machines" in text
    assert os.path.exists(log)
