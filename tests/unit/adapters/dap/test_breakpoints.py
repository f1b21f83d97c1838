"""Breakpoint requests over a FakeDebugger (functions and addresses; it has no lines)."""

from __future__ import annotations

from aliceserver.debuggers.model import CatchKind
from tests.support.dap_client import DapClient
from tests.support.dap_session import launch_arguments
from tests.support.fake_debugger import FakeDebugger
from tests.support.fake_program import CODE_BASE, INSN_SIZE

PROGRAM = "/bin/fake-program"


def _begin(dap: DapClient) -> None:
    dap.call("initialize", {"adapterID": "alice"})
    dap.call("launch", launch_arguments(PROGRAM))


def test_function_breakpoints_replace_all_and_keep_ids(dap: DapClient) -> None:
    _begin(dap)
    first = dap.call(
        "setFunctionBreakpoints", {"breakpoints": [{"name": "helper"}, {"name": "nope"}]}
    )
    helper, nope = first["breakpoints"]
    assert helper["verified"] is True and helper["instructionReference"]
    assert nope["verified"] is False and "No such function" in nope["message"]
    again = dap.call("setFunctionBreakpoints", {"breakpoints": [{"name": "helper"}]})
    assert again["breakpoints"][0]["id"] == helper["id"]  # unchanged: the same breakpoint
    since = dap.mark()
    dap.call("configurationDone")
    stop = dap.wait_event("stopped", since=since)
    assert stop["body"]["reason"] == "function breakpoint"
    assert stop["body"]["hitBreakpointIds"] == [helper["id"]]
    cleared = dap.call("setFunctionBreakpoints", {"breakpoints": []})
    assert cleared == {"breakpoints": []}


def test_bad_condition_makes_one_breakpoint_unverified(dap: DapClient) -> None:
    _begin(dap)
    body = dap.call("setFunctionBreakpoints", {"breakpoints": [
        {"name": "helper", "condition": "nosuch == 1"},
        {"name": "main", "hitCondition": "every other"},
        {"name": "helper", "condition": "$rip == 0"},
    ]})  # fmt: skip
    states = [bp["verified"] for bp in body["breakpoints"]]
    assert states == [True, False, True]
    assert "hit condition" in body["breakpoints"][1]["message"]
    assert len({bp["id"] for bp in body["breakpoints"]}) == 3


def test_source_breakpoints_same_order_and_length(dap: DapClient) -> None:
    _begin(dap)
    args = {
        "source": {"name": "prog.c", "path": "/src/prog.c"},
        "breakpoints": [{"line": 3}, {"line": 1, "logMessage": "x={x}"}, {"line": 3}],
        "lines": "[3, 1]",  # an old client's string: ignored, `breakpoints` wins
    }
    body = dap.call("setBreakpoints", args)
    assert [bp["line"] for bp in body["breakpoints"]] == [3, 1, 3]
    assert all(not bp["verified"] and bp["message"] for bp in body["breakpoints"])
    assert all(bp["source"]["path"] == "/src/prog.c" for bp in body["breakpoints"])
    legacy = dap.call("setBreakpoints", {"source": {"path": "/src/other.c"}, "lines": [4, 5]})
    assert [bp["line"] for bp in legacy["breakpoints"]] == [4, 5]
    missing = dap.request("setBreakpoints", {"source": {"name": "x.c"}, "breakpoints": []})
    assert missing["success"] is False


def test_instruction_breakpoint_hit(dap: DapClient) -> None:
    _begin(dap)
    address = CODE_BASE + 3 * INSN_SIZE
    body = dap.call("setInstructionBreakpoints", {"breakpoints": [
        {"instructionReference": hex(CODE_BASE), "offset": 3 * INSN_SIZE},
    ]})  # fmt: skip
    (bp,) = body["breakpoints"]
    assert bp["verified"] and int(bp["instructionReference"], 16) == address
    since = dap.mark()
    dap.call("configurationDone")
    stop = dap.wait_event("stopped", since=since)
    assert stop["body"]["reason"] == "instruction breakpoint"
    assert stop["body"]["hitBreakpointIds"] == [bp["id"]]
    frame = dap.stack_trace(stop["body"]["threadId"])[0]
    assert int(frame["instructionPointerReference"], 16) == address


def test_data_breakpoint_hit(dap: DapClient) -> None:
    _begin(dap)
    body = dap.call("setDataBreakpoints", {"breakpoints": [
        {"dataId": "0x404000/4", "accessType": "write"},
        {"dataId": "garbage"},
        {"dataId": "0x404008/4", "accessType": "read"},
    ]})  # fmt: skip
    watch, bad, read = body["breakpoints"]
    assert watch["verified"] and not bad["verified"] and not read["verified"]
    since = dap.mark()
    dap.call("configurationDone")
    stop = dap.wait_event("stopped", since=since)
    assert stop["body"]["reason"] == "data breakpoint"
    assert stop["body"]["hitBreakpointIds"] == [watch["id"]]
    info = dap.call("dataBreakpointInfo", {"name": "$rsp"})
    assert info["dataId"] is None and info["description"]


def test_exception_filters(dap: DapClient, fake: FakeDebugger) -> None:
    capabilities = dap.call("initialize", {"adapterID": "alice"})
    filters = {f["filter"] for f in capabilities["exceptionBreakpointFilters"]}
    assert {"signals", "cpp_throw", "cpp_catch", "rust_panic"} <= filters
    body = dap.call("setExceptionBreakpoints", {"filters": ["cpp_throw", "rust_panic", "bogus"]})
    assert [bp["verified"] for bp in body["breakpoints"]] == [True, True, False]
    assert fake.catchpoints == {CatchKind.THROW, CatchKind.PANIC}
    assert not fake.signal_policy(10).stop  # SIGUSR1: the signals filter is off
    assert fake.signal_policy(11).stop  # SIGSEGV always stops
    dap.call("setExceptionBreakpoints", {"filters": ["signals"]})
    assert fake.catchpoints == frozenset() and fake.signal_policy(10).stop


def test_breakpoint_event_after_the_reply(dap: DapClient, fake: FakeDebugger) -> None:
    from aliceserver.debuggers.events import LocationBreakpointChanged

    _begin(dap)
    body = dap.call("setFunctionBreakpoints", {"breakpoints": [{"name": "helper"}]})
    info = fake.location_breakpoints()[0]
    fake.post(LocationBreakpointChanged(info))
    event = dap.wait_event("breakpoint")
    assert event["body"]["reason"] == "changed"
    assert event["body"]["breakpoint"]["id"] == body["breakpoints"][0]["id"]
    names = [m.message.get("command") or m.message.get("event") for m in dap.transcript]
    assert names.index("setFunctionBreakpoints") < names.index("breakpoint")


def test_breakpoint_locations_without_lines(dap: DapClient) -> None:
    _begin(dap)
    body = dap.call(
        "breakpointLocations", {"source": {"path": "/src/prog.c"}, "line": 1, "endLine": 3}
    )
    assert body == {"breakpoints": []}
