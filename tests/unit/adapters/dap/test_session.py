"""The DAP session core over a FakeDebugger: handshake, seq, errors, bad input, life cycle."""

from __future__ import annotations

from typing import Any

from aliceserver.adapters.dap.messages import ErrorId
from tests.support.dap_client import DapClient
from tests.support.dap_session import launch_arguments, start_session
from tests.support.fake_debugger import FakeDebugger
from tests.unit.adapters.dap.conftest import RawPeer, Served

PROGRAM = "/bin/fake-program"


def _error(response: dict[str, Any], error_id: int) -> dict[str, Any]:
    assert response["success"] is False
    assert isinstance(response["message"], str) and response["message"]
    error = response["body"]["error"]
    assert error["id"] == error_id and isinstance(error["id"], int)
    assert error["format"] and isinstance(error["showUser"], bool)
    return error


def test_initialize_then_initialized_event_and_seq(raw: RawPeer) -> None:
    raw.send(
        {"seq": 1, "type": "request", "command": "initialize", "arguments": {"adapterID": "x"}}
    )
    response = raw.recv()
    assert response["type"] == "response" and response["request_seq"] == 1 and response["success"]
    assert response["seq"] == 1
    assert response["body"]["supportsConfigurationDoneRequest"] is True
    assert not response["body"]["supportsStepBack"]  # honest: only what works
    event = raw.recv()
    assert event == {"type": "event", "event": "initialized", "seq": 2}
    answer = raw.request(2, "threads")
    assert answer["seq"] == 3 and answer["body"] == {"threads": []}


def test_initialize_twice_is_an_error(raw: RawPeer) -> None:
    raw.request(1, "initialize", {"adapterID": "x"})
    _error(raw.request(2, "initialize", {"adapterID": "x"}), ErrorId.WRONG_STATE)


def test_bad_input_is_answered_and_the_session_goes_on(raw: RawPeer) -> None:
    raw.send(b'{"seq": 7, "type": "request", "command": "threads", oops')
    reply = raw.response()
    assert reply["request_seq"] == 7 and reply["command"] == "threads"
    _error(reply, ErrorId.BAD_REQUEST)
    raw.send(b"[1, 2]")  # JSON, but not an object: nothing to recover (request_seq 0)
    _error(raw.response(check=False), ErrorId.BAD_REQUEST)
    _error(raw.request(8, "noSuchCommand"), ErrorId.UNKNOWN_COMMAND)
    _error(raw.request(9, "stackTrace", {}), ErrorId.INVALID_ARGUMENTS)
    _error(raw.request(10, "stackTrace", {"threadId": "1"}), ErrorId.INVALID_ARGUMENTS)
    _error(raw.request(11, "launch", {"program": 5}), ErrorId.INVALID_ARGUMENTS)
    _error(raw.request(12, "launch", {"program": PROGRAM, "env": 3}), ErrorId.INVALID_ARGUMENTS)
    send = {"seq": 13, "type": "request", "command": "threads", "arguments": [1]}
    raw.send(send)
    _error(raw.response(), ErrorId.BAD_REQUEST)
    assert raw.request(14, "threads")["success"]


def test_internal_errors_become_replies(raw: RawPeer, fake: FakeDebugger) -> None:
    def broken(**_: Any) -> list[Any]:
        raise RuntimeError("boom")

    fake.threads = broken  # type: ignore[method-assign]
    error = _error(raw.request(1, "threads"), ErrorId.INTERNAL)
    assert "boom" in error["format"]
    assert raw.request(2, "initialize", {"adapterID": "x"})["success"]


def test_launch_waits_for_configuration_done(dap: DapClient, fake: FakeDebugger) -> None:
    dap.call("initialize", {"adapterID": "alice"})
    dap.wait_event("initialized")
    dap.call("launch", launch_arguments(PROGRAM))
    dap.wait_event("process")
    assert fake.process is not None and not any(e["event"] == "output" for e in dap.events)
    since = dap.mark()
    dap.call("configurationDone")
    output = dap.wait_event("output", since=since)
    assert output["body"] == {"category": "stdout", "output": "hello\n"}


def test_configuration_done_before_launch(dap: DapClient, fake: FakeDebugger) -> None:
    dap.call("initialize", {"adapterID": "alice"})
    dap.call("configurationDone")
    assert fake.process is None
    dap.call("launch", launch_arguments(PROGRAM))
    assert dap.wait_event("output")["body"]["output"] == "hello\n"


def test_launch_twice_and_missing_program(dap: DapClient, fake: FakeDebugger) -> None:
    fake.program = FakeDebugger().program.__class__(
        fake.program.instructions, path=PROGRAM, exit_code=3
    )
    dap.call("initialize", {"adapterID": "alice"})
    missing = dap.request("launch", launch_arguments("/nowhere/prog"))
    _error(missing, ErrorId.TARGET)
    assert "No such file" in missing["message"] and missing["body"]["error"]["showUser"]
    dap.call("launch", {**launch_arguments(PROGRAM), "unknownKey": {"x": 1}, "__sessionId": "z"})
    _error(dap.request("launch", launch_arguments(PROGRAM)), ErrorId.WRONG_STATE)


def test_launch_refuses_what_no_process_can_take(dap: DapClient) -> None:
    # JSON lets a client send a NUL or a lone surrogate; execve takes neither.
    dap.call("initialize", {"adapterID": "alice"})
    bad: list[tuple[dict[str, Any], str]] = [
        ({"program": "\ud800"}, "'program'"),
        ({"cwd": "a\0b"}, "'cwd'"),
        ({"args": ["ok", "\ud800"]}, "'args[1]'"),
        ({"args": ["a\0b"]}, "'args[0]'"),
        ({"env": {"A": "\udfff"}}, "'env.A'"),
        ({"env": {"A=B": "x"}}, "'A=B'"),
        ({"env": [{"name": "\ud800", "value": "x"}]}, "'env'"),
    ]
    for change, named in bad:
        answer = dap.request("launch", {**launch_arguments(PROGRAM), **change})
        _error(answer, ErrorId.INVALID_ARGUMENTS)
        assert named in answer["message"], answer["message"]
    dap.call("launch", launch_arguments(PROGRAM))  # the session is still usable


def test_run_to_exit_events(dap: DapClient) -> None:
    start_session(dap, PROGRAM, wait_stop=False)
    # The default program waits once (a blocking instruction): pause it, then go on.
    thread = dap.threads()[0]["id"]
    since = dap.mark()
    dap.call("pause", {"threadId": thread})
    stop = dap.wait_event("stopped", since=since)
    assert stop["body"]["reason"] == "pause" and stop["body"]["allThreadsStopped"] is True
    body = dap.call("continue", {"threadId": thread})
    assert body == {"allThreadsContinued": True}
    exited = dap.wait_event("exited")
    assert exited["body"] == {"exitCode": 3}
    names = [e["event"] for e in dap.events]
    assert names.index("exited") < names.index("terminated")
    assert "continued" not in names  # implied by our own responses
    # After the end: requests are still answered.
    assert dap.threads() == []


def test_stepping_while_running_is_an_error(dap: DapClient) -> None:
    start_session(dap, PROGRAM, wait_stop=False)
    thread = dap.threads()[0]["id"]
    dap.wait_event("output")
    _error(dap.request("next", {"threadId": thread}), ErrorId.TARGET)
    _error(dap.request("stackTrace", {"threadId": thread}), ErrorId.TARGET)
    since = dap.mark()
    dap.call("pause", {"threadId": thread})
    dap.wait_event("stopped", since=since)
    assert dap.stack_trace(thread)


def test_requests_before_start(dap: DapClient) -> None:
    dap.call("initialize", {"adapterID": "alice"})
    _error(dap.request("continue", {"threadId": 1}), ErrorId.WRONG_STATE)
    _error(dap.request("evaluate", {"expression": "1", "context": "watch"}), ErrorId.WRONG_STATE)
    _error(
        dap.request("readMemory", {"memoryReference": "0x1000", "count": 4}), ErrorId.WRONG_STATE
    )


def test_disconnect_kills_a_launched_program(
    dap: DapClient, fake: FakeDebugger, served: Served
) -> None:
    start_session(dap, PROGRAM, wait_stop=False)
    assert fake.process is not None
    assert dap.request("disconnect", {"terminateDebuggee": True})["success"]
    served.thread.join(timeout=10)
    assert not served.thread.is_alive() and fake.process is None


def test_disconnect_detaches_an_attached_program(dap: DapClient, fake: FakeDebugger) -> None:
    detached: list[bool] = []
    real_detach = fake.detach

    def detach() -> None:
        detached.append(True)
        real_detach()

    fake.detach = detach  # type: ignore[method-assign]
    dap.call("initialize", {"adapterID": "alice"})
    _error(dap.request("attach", {"pid": "x"}), ErrorId.INVALID_ARGUMENTS)
    dap.call("attach", {"pid": 4321, "stopOnEntry": True})
    dap.call("configurationDone")
    stop = dap.wait_event("stopped")
    assert stop["body"]["reason"] == "pause" and stop["body"]["threadId"] == 4321
    assert [e["event"] for e in dap.events].count("stopped") == 1  # the attach stop: once
    assert dap.request("disconnect", {})["success"]
    assert detached == [True]


def test_client_vanishing_ends_the_debuggee(
    served: Served, fake: FakeDebugger, schema: Any
) -> None:
    peer = RawPeer(served.client_end, schema)
    peer.request(1, "initialize", {"adapterID": "x"})
    peer.request(2, "launch", {"program": PROGRAM})
    assert fake.process is not None
    served.finish()  # EOF without disconnect
    assert fake.process is None


def test_terminate_then_disconnect(dap: DapClient, fake: FakeDebugger) -> None:
    start_session(dap, PROGRAM, wait_stop=False)
    dap.call("terminate")
    exited = dap.wait_event("exited")
    assert exited["body"]["exitCode"] == 128 + 9  # killed
    dap.wait_event("terminated")
    assert fake.process is None


def test_restart_relaunches(dap: DapClient, fake: FakeDebugger) -> None:
    start_session(dap, PROGRAM, wait_stop=False)
    dap.wait_event("output")
    since = dap.mark()
    dap.call("restart", {"arguments": launch_arguments(PROGRAM, args=["again"])})
    dap.wait_event("process", since=since)
    assert dap.wait_event("output", since=since)["body"]["output"] == "hello\n"
    assert not any(e["event"] in ("exited", "terminated") for e in dap.events[since:])
