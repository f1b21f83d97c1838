"""Stopped-state requests over a FakeDebugger: frames, paging, handles, evaluate, memory."""

from __future__ import annotations

import base64
from typing import Any

from aliceserver.adapters.dap.messages import ErrorId
from tests.support.dap_client import DapClient
from tests.support.dap_session import launch_arguments
from tests.support.fake_debugger import FakeDebugger
from tests.support.fake_program import CODE_BASE

PROGRAM = "/bin/fake-program"


def _stopped_in_helper(dap: DapClient) -> int:
    dap.call("initialize", {"adapterID": "alice", "supportsInvalidatedEvent": True})
    dap.call("launch", launch_arguments(PROGRAM))
    dap.call("setFunctionBreakpoints", {"breakpoints": [{"name": "helper"}]})
    dap.call("configurationDone")
    return int(dap.wait_event("stopped")["body"]["threadId"])


def _error_id(response: dict[str, Any]) -> int:
    assert response["success"] is False
    return int(response["body"]["error"]["id"])


def test_stack_paging(dap: DapClient) -> None:
    thread = _stopped_in_helper(dap)
    whole = dap.call("stackTrace", {"threadId": thread})
    assert [f["name"] for f in whole["stackFrames"]] == ["helper", "main"]
    assert whole["totalFrames"] == 2
    for levels in (0, None):
        args: dict[str, Any] = {"threadId": thread, "startFrame": 0}
        if levels is not None:
            args["levels"] = levels
        assert len(dap.call("stackTrace", args)["stackFrames"]) == 2
    first = dap.call("stackTrace", {"threadId": thread, "startFrame": 0, "levels": 1})
    assert [f["name"] for f in first["stackFrames"]] == ["helper"]
    assert first["totalFrames"] > 1  # more to load
    rest = dap.call("stackTrace", {"threadId": thread, "startFrame": 1, "levels": 19})
    assert [f["name"] for f in rest["stackFrames"]] == ["main"] and rest["totalFrames"] == 2
    ids = [f["id"] for f in whole["stackFrames"]]
    assert ids == [first["stackFrames"][0]["id"], rest["stackFrames"][0]["id"]]  # stable
    beyond = dap.call("stackTrace", {"threadId": thread, "startFrame": 9, "levels": 5})
    assert beyond["stackFrames"] == [] and beyond["totalFrames"] == 2  # the real depth
    frame = whole["stackFrames"][0]
    assert frame["line"] == 0 and frame["column"] == 0 and "source" not in frame


def test_scopes_variables_paging_and_stale_handles(dap: DapClient) -> None:
    thread = _stopped_in_helper(dap)
    frame = dap.stack_trace(thread)[0]
    scopes = {s["name"]: s for s in dap.scopes(frame["id"])}
    assert set(scopes) == {"Locals", "Arguments", "Globals", "Registers"}
    registers = scopes["Registers"]["variablesReference"]
    every = dap.variables(registers)
    assert len(every) > 10 and {"rip", "rsp"} <= {v["name"] for v in every}
    page = dap.variables(registers, start=2, count=3)
    assert page == every[2:5]
    assert dap.variables(registers, start=len(every) + 5) == []
    assert dap.variables(registers, filter="indexed") == []
    rip = next(v for v in every if v["name"] == "rip")
    assert int(rip["value"], 16) == CODE_BASE + 7 * 4
    dap.call("continue", {"threadId": thread})  # to the waiting instruction: running
    stale = dap.request("variables", {"variablesReference": registers})
    assert _error_id(stale) == ErrorId.STALE_REFERENCE
    assert _error_id(dap.request("scopes", {"frameId": frame["id"]})) == ErrorId.STALE_REFERENCE


def test_set_variable_register_and_invalidated(dap: DapClient, fake: FakeDebugger) -> None:
    thread = _stopped_in_helper(dap)
    frame = dap.stack_trace(thread)[0]
    registers = next(s for s in dap.scopes(frame["id"]) if s["name"] == "Registers")
    since = dap.mark()
    body = dap.call("setVariable", {
        "variablesReference": registers["variablesReference"], "name": "rbx", "value": "0x2a",
    })  # fmt: skip
    assert body["value"] == "0x2a"
    assert fake.read_registers(thread)["rbx"] == 42
    assert dap.wait_event("invalidated", since=since)["body"]["areas"] == ["variables"]


def test_evaluate_contexts_and_repl(dap: DapClient) -> None:
    thread = _stopped_in_helper(dap)
    frame_id = dap.stack_trace(thread)[0]["id"]
    watch = dap.call(
        "evaluate", {"expression": "$rbx + 2", "frameId": frame_id, "context": "watch"}
    )
    assert watch["result"] == "2" and watch["variablesReference"] == 0
    hexed = dap.call("evaluate", {
        "expression": "255", "frameId": frame_id, "context": "hover", "format": {"hex": True},
    })  # fmt: skip
    assert hexed["result"] == "0xff"
    bad = dap.request("evaluate", {"expression": "nosuch", "frameId": frame_id, "context": "watch"})
    assert _error_id(bad) == ErrorId.PROTOCOL and "nosuch" in bad["message"]
    assert bad["body"]["error"]["showUser"] is False
    repl = dap.call("evaluate", {"expression": "p/x 16", "frameId": frame_id, "context": "repl"})
    assert repl["result"] == "$1 = 0x10"  # gdb's print: into the value history
    bt = dap.call("evaluate", {"expression": "bt", "context": "repl"})
    assert "helper" in bt["result"] and "main" in bt["result"]
    regs = dap.call("evaluate", {"expression": "info registers rip", "context": "repl"})
    assert regs["result"].startswith("rip")
    examined = dap.call("evaluate", {"expression": "x/2xw 0x404000", "context": "repl"})
    assert examined["result"].startswith("0x404000")
    assert (
        dap.request("evaluate", {"expression": "`frobnicate", "context": "repl"})["success"]
        is False
    )
    completions = dap.call("completions", {"text": "inf", "column": 4, "frameId": frame_id})
    assert {"label": "info", "type": "keyword", "start": 0, "length": 3} in completions["targets"]


def test_memory_requests(dap: DapClient) -> None:
    _stopped_in_helper(dap)
    read = dap.call("readMemory", {"memoryReference": "0x404000", "count": 8})
    assert base64.b64decode(read["data"]) == bytes(8) and read["address"] == "0x404000"
    written = dap.call(
        "writeMemory",
        {"memoryReference": "0x404000", "offset": 2, "data": base64.b64encode(b"\x07").decode()},
    )
    assert written["bytesWritten"] == 1
    again = dap.call("readMemory", {"memoryReference": "0x404000", "count": 4})
    assert base64.b64decode(again["data"]) == b"\x00\x00\x07\x00"
    edge = dap.call("readMemory", {"memoryReference": "0x404008", "count": 16})
    assert base64.b64decode(edge["data"]) == bytes(8) and edge["unreadableBytes"] == 8
    bad = dap.request("readMemory", {"memoryReference": "nowhere", "count": 4})
    assert _error_id(bad) == ErrorId.INVALID_ARGUMENTS
    code = dap.call("disassemble", {
        "memoryReference": hex(CODE_BASE), "instructionOffset": -2, "instructionCount": 6,
    })["instructions"]  # fmt: skip
    assert len(code) == 6
    assert code[0]["presentationHint"] == "invalid" and code[2]["address"] == hex(CODE_BASE)
    assert code[2].get("symbol") == "main"
    calls = [i for i in code if i["instruction"].startswith("call")]
    assert calls and "helper" in calls[0]["instruction"]


def test_threads_modules_and_exception_info(dap: DapClient) -> None:
    thread = _stopped_in_helper(dap)
    (only,) = dap.threads()
    assert only["id"] == thread and str(thread) in only["name"]
    modules = dap.call("modules", {})
    assert modules["totalModules"] == 1 and modules["modules"][0]["path"] == PROGRAM
    info = dap.request("exceptionInfo", {"threadId": thread})
    assert _error_id(info) == ErrorId.WRONG_STATE


def test_paths_no_file_system_can_take_are_refused_clearly(dap: DapClient) -> None:
    # JSON lets a client send a lone surrogate or a NUL; no file name holds one.
    _stopped_in_helper(dap)
    for path in ("\ud800", "a\0b"):
        for command, arguments in (
            ("source", {"source": {"path": path}}),
            ("setBreakpoints", {"source": {"path": path}, "breakpoints": [{"line": 3}]}),
            ("breakpointLocations", {"source": {"path": path}, "line": 3}),
            ("gotoTargets", {"source": {"path": path}, "line": 3}),
        ):
            response = dap.request(command, arguments)
            assert response["success"] is False, (command, response)
            assert "file path" in response["message"] + str(response.get("body")), response
    assert dap.call("threads")["threads"]  # and the session goes on
