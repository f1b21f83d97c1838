"""The DAP adapter on a program behind gdbserver, through a fault-injecting proxy
(tests/support/rsp_proxy.py): corrupted replies are asked for again and the session is a
clean one's; a stub that dies while stopped or in the middle of a step ends the session
with "Remote connection closed" (no stop, no exit code), the adapter answering on; a stub
that answers garbage is a failed attach, after which a good one works. The `process`
event says a program behind a stub is no local process. No gdbserver or program is left
behind (tests/support/gdbserver.py checks it)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_remote_dap import _remote_arguments, _start
from tests.integration.test_remote_faults_console import EveryNth, _acks_kept, _corrupt, _kill_on
from tests.support.adapter_process import alice_argv
from tests.support.build import Builder, marker_line
from tests.support.dap_client import DapClient
from tests.support.dap_schema import require_schema
from tests.support.dap_session import alice_session
from tests.support.gdbserver import gdbserver
from tests.support.rsp_proxy import checksummed, rsp_proxy

pytestmark = pytest.mark.timeout(120)
PATIENCE = 20.0


@pytest.fixture
def dap(tmp_path: Path) -> Iterator[DapClient]:
    require_schema()
    with alice_session(stderr=tmp_path / "adapter.log") as client:
        yield client


def _at_add(dap: DapClient, program: Path, source: Path, address: str) -> int:
    session = _start(dap, _remote_arguments("attach", program, address), {source: [marker_line(source, "add_body")]})
    assert session.stop is not None and session.stop["body"]["reason"] == "breakpoint", session.stop
    return session.thread_id


def _lost(dap: DapClient) -> None:
    """The session ended as a stub's loss ends it: said, no exit code, no stop after."""
    dap.wait_event("terminated", timeout=PATIENCE)
    said = [e["body"]["output"] for e in dap.events if e["event"] == "output"]
    assert "Remote connection closed.\n" in said, said
    assert not any(e["event"] == "exited" for e in dap.events)
    assert dap.request("threads", {})["success"]  # the adapter answers on


def test_the_process_event_says_a_stubs_program_is_not_local(dap: DapClient, builder: Builder) -> None:
    program = builder.build("mi_prog")
    with gdbserver(program) as server:
        _start(dap, _remote_arguments("attach", program, server.address, stopOnEntry=True))
        process = dap.wait_event("process")["body"]
        assert (process["isLocalProcess"], process["startMethod"]) == (False, "attach"), process
        assert process["systemProcessId"] == server.inferior_pid
        assert dap.request("disconnect", {"terminateDebuggee": True})["success"]


def test_a_launch_on_a_multi_stub_is_not_local_either(dap: DapClient, builder: Builder) -> None:
    program = builder.build("mi_prog")
    with gdbserver(None, multi=True) as server:
        _start(dap, _remote_arguments("launch", program, server.address, stopOnEntry=True))
        process = dap.wait_event("process")["body"]
        assert (process["isLocalProcess"], process["startMethod"]) == (False, "attach"), process
        assert dap.request("disconnect", {"terminateDebuggee": True})["success"]


def _inspect(dap: DapClient, thread: int) -> list[Any]:
    frames = dap.stack_trace(thread)
    top = frames[0]["id"]
    value = dap.call("evaluate", {"expression": "a + b * 2", "frameId": top, "context": "watch"})["result"]
    return [[(f["name"], f["line"]) for f in frames[:2]], dap.scope_variables(top, "Arg"), value,
            dap.resume("next", thread)["body"]["reason"], dap.stack_trace(thread, 0, 1)[0]["line"]]  # fmt: skip


def test_a_corrupting_link_gives_the_clean_sessions_stops_and_values(builder: Builder, tmp_path: Path) -> None:
    require_schema()
    program, source = builder.build("mi_prog"), builder.source("mi_prog")
    seen = []
    corrupt = EveryNth(3, _corrupt)
    for faulty in (False, True):
        client = DapClient.spawn(alice_argv(), validate=True, stderr=tmp_path / f"adapter{faulty}.log")
        try:
            with gdbserver(program) as server, rsp_proxy(server.address, _acks_kept(corrupt)) as proxy:
                thread = _at_add(client, program, source, proxy.address if faulty else server.address)
                seen.append(_inspect(client, thread))
                assert client.request("disconnect", {"terminateDebuggee": True})["success"]
        finally:
            client.close()
        client.assert_valid()
    assert seen[1] == seen[0]
    assert seen[0][1] == {"a": "0", "b": "10"} and seen[0][2] == "20"
    assert corrupt.changed > 10


def test_a_stub_that_dies_while_stopped_ends_the_session(dap: DapClient, builder: Builder) -> None:
    program, source = builder.build("mi_prog"), builder.source("mi_prog")
    with gdbserver(program) as server:
        thread = _at_add(dap, program, source, server.address)
        server.process.send_signal(signal.SIGKILL)
        server.process.wait()
        dap.request("next", {"threadId": thread})  # it fails, or its step never stops
        _lost(dap)
        frames = dap.request("stackTrace", {"threadId": thread})
        assert not frames["success"], frames


def test_a_stub_that_dies_in_the_middle_of_a_step_ends_the_session(dap: DapClient, builder: Builder) -> None:
    program, source = builder.build("mi_prog"), builder.source("mi_prog")
    with gdbserver(program) as server, rsp_proxy(server.address, to_stub=_kill_on(server, b"vCont;r")) as proxy:
        thread = _at_add(dap, program, source, proxy.address)
        assert dap.request("next", {"threadId": thread})["success"]
        _lost(dap)
        assert server.process.poll() is not None  # it died there
        assert not any(e["event"] == "stopped" and e["body"]["reason"] == "step" for e in dap.events)


def test_a_stub_that_answers_garbage_is_a_failed_attach_and_a_good_one_works(dap: DapClient, builder: Builder) -> None:
    program = builder.build("mi_prog")
    dap.call("initialize", {"adapterID": "alice"})
    with gdbserver(program) as server, rsp_proxy(server.address, lambda u: checksummed(b"nonsense!") if u[:1] == b"$"
                                                 else u) as proxy:  # fmt: skip
        refused = dap.request("attach", _remote_arguments("attach", program, proxy.address))
    assert not refused["success"] and "nonsense!" in refused["message"], refused
    with gdbserver(program) as server:
        dap.call("attach", _remote_arguments("attach", program, server.address, stopOnEntry=True))
        dap.call("configurationDone")
        assert dap.wait_event("stopped", timeout=PATIENCE)["body"]["threadId"] == server.inferior_pid
        assert dap.request("disconnect", {"terminateDebuggee": True})["success"]
