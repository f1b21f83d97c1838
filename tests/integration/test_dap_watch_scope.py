"""DAP data breakpoints on a local are removed when its frame returns (gdb deletes the
watchpoint): a `breakpoint` event with reason `removed` (VS Code drops it from its list),
gdb's reason on the console, and a `data breakpoint` stop at the caller's resume address.
One on a global stays."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.build import Builder, marker_line
from tests.support.dap_client import DapClient
from tests.support.dap_schema import require_schema
from tests.support.dap_session import alice_session, start_session

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def dap(tmp_path: Path) -> Iterator[DapClient]:
    require_schema()
    with alice_session(stderr=tmp_path / "adapter.log") as client:
        yield client


def test_data_breakpoint_on_a_local_is_removed_when_its_frame_returns(dap: DapClient, builder: Builder) -> None:
    program = builder.build("watch_scope")
    source = str(builder.source("watch_scope"))
    session = start_session(dap, program, breakpoints={source: [marker_line(source, "acc")]})
    thread = session.thread_id
    frame = dap.stack_trace(thread, 0, 1)[0]
    local = dap.call("dataBreakpointInfo", {"name": "acc", "frameId": frame["id"]})
    shared = dap.call("dataBreakpointInfo", {"name": "global_total", "frameId": frame["id"]})
    assert local["dataId"] and shared["dataId"]
    watches = dap.call("setDataBreakpoints", {"breakpoints": [
        {"dataId": local["dataId"], "accessType": "write"}, {"dataId": shared["dataId"], "accessType": "write"},
    ]})["breakpoints"]
    assert all(w["verified"] for w in watches)
    acc_id, total_id = (w["id"] for w in watches)
    dap.call("setBreakpoints", {"source": {"path": source}, "breakpoints": []})
    hits = []
    while True:
        since = dap.mark()
        stop = dap.continue_(thread)
        assert stop["event"] == "stopped", stop
        body = stop["body"]
        assert body["reason"] == "data breakpoint", body
        if "hitBreakpointIds" not in body:
            break
        hits.append(body["hitBreakpointIds"])
    assert hits[:3] == [[acc_id]] * 3 and hits[3:] == [[total_id]]  # acc = 1, 3, 6; the total
    removed = dap.wait_event("breakpoint", lambda e: e["body"]["reason"] == "removed", since=since)
    assert removed["body"]["breakpoint"]["id"] == acc_id
    assert f"Data breakpoint {acc_id} removed" in body["description"]
    said = [e["body"]["output"] for e in dap.events[since:] if e["event"] == "output"]
    assert f"Data breakpoint {acc_id} deleted because the program has left the block in which its expression is valid.\n" in said
    top = dap.stack_trace(thread, 0, 1)[0]
    assert (top["name"], top["line"]) == ("main", marker_line(source, "call"))
    # The global's data breakpoint lives on into the second call; the local's is gone.
    stop = dap.continue_(thread)
    assert stop["body"]["hitBreakpointIds"] == [total_id]
    assert dap.stack_trace(thread, 0, 1)[0]["name"] == "compute"
    dap.call("setDataBreakpoints", {"breakpoints": [{"dataId": shared["dataId"], "accessType": "write"}]})
    dap.call("setDataBreakpoints", {"breakpoints": []})
    assert dap.continue_(thread)["event"] == "exited"


def test_a_data_breakpoints_condition_lets_a_next_go_on(dap: DapClient, builder: Builder) -> None:
    """A data breakpoint with a condition (DataBreakpoint.condition) stops only where it
    holds; a `next` over a write it refuses ends its line as if nothing trapped; a typo is
    refused at once, the breakpoint unverified with the evaluator's message."""
    program = builder.build("watch_scope")
    source = str(builder.source("watch_scope"))
    session = start_session(dap, program, breakpoints={source: [marker_line(source, "acc")]})
    thread = session.thread_id
    frame = dap.stack_trace(thread, 0, 1)[0]
    local = dap.call("dataBreakpointInfo", {"name": "acc", "frameId": frame["id"]})["dataId"]
    dap.call("setBreakpoints", {"source": {"path": source}, "breakpoints": []})
    bad = dap.call("setDataBreakpoints", {"breakpoints": [{"dataId": local, "condition": "acc >"}]})
    assert not bad["breakpoints"][0]["verified"] and bad["breakpoints"][0]["message"]
    good = dap.call("setDataBreakpoints", {"breakpoints": [{"dataId": local, "condition": "acc > 2"}]})
    assert good["breakpoints"][0]["verified"], good
    stepped = dap.resume("next", thread)  # acc: 0 -> 1, refused: the line ends
    assert stepped["body"]["reason"] == "step", stepped
    assert dap.scope_variables(dap.stack_trace(thread, 0, 1)[0]["id"])["acc"] == "1"
    stop = dap.continue_(thread)  # acc: 1 -> 3, held
    assert stop["body"]["reason"] == "data breakpoint" and stop["body"]["hitBreakpointIds"] == [good["breakpoints"][0]["id"]]
    assert dap.scope_variables(dap.stack_trace(thread, 0, 1)[0]["id"])["acc"] == "3"
    dap.call("setDataBreakpoints", {"breakpoints": []})
    assert dap.continue_(thread)["event"] == "exited"
