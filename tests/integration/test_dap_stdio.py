"""`python -m aliceserver --adapter dap` over stdio, debugging real C programs.

Every message the adapter sends is validated against the DAP schema (skipped with the
reason when the schema is not beside the repository).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.adapter_process import alice_argv
from tests.support.build import Builder, marker_line
from tests.support.dap_client import DapClient
from tests.support.dap_schema import require_schema
from tests.support.dap_session import alice_session, launch_arguments, start_session

SRC = "src_basic"


@pytest.fixture
def dap(tmp_path: Path) -> Iterator[DapClient]:
    require_schema()
    with alice_session(stderr=tmp_path / "adapter.log") as client:
        yield client


def _source(builder: Builder, name: str = SRC) -> str:
    return str(builder.source(name))


def test_breakpoints_stack_variables_and_stepping(dap: DapClient, builder: Builder) -> None:
    program = builder.build(SRC)
    source = _source(builder)
    vars_line = marker_line(source, "vars")
    nocode = marker_line(source, "nocode")
    session = start_session(dap, program, breakpoints={source: [vars_line, nocode, 99999]})
    placed = session.breakpoints[source]
    assert [bp["verified"] for bp in placed] == [True, True, False]
    assert placed[0]["line"] == vars_line
    assert placed[1]["line"] > nocode  # moved to the next line with code, as reported
    assert "No code" in placed[2]["message"]
    first = session.stop
    assert first is not None and first["body"]["reason"] == "breakpoint"
    assert first["body"]["hitBreakpointIds"] == [placed[1]["id"]]
    thread = session.thread_id
    stop = dap.continue_(thread)
    assert stop["body"]["hitBreakpointIds"] == [placed[0]["id"]]

    top = dap.call("stackTrace", {"threadId": thread, "startFrame": 0, "levels": 1})
    (frame,) = top["stackFrames"]
    assert frame["name"] == "show_values" and frame["line"] == vars_line
    assert frame["source"]["path"] == source and top["totalFrames"] > 1
    rest = dap.call("stackTrace", {"threadId": thread, "startFrame": 1, "levels": 19})
    assert rest["stackFrames"][0]["name"] == "main"

    scopes = {s["name"]: s["variablesReference"] for s in dap.scopes(frame["id"])}
    arguments = {v["name"]: v for v in dap.variables(scopes["Arguments"])}
    assert arguments["count"]["value"] == "3"
    assert '"label"' in arguments["label"]["value"]
    op = arguments["op"]
    members = {v["name"]: v for v in dap.variables(op["variablesReference"])}
    assert members["id"]["value"] == "42" and members["id"]["evaluateName"] == "op->id"
    inner = {v["name"]: v["value"] for v in dap.variables(members["in"]["variablesReference"])}
    assert inner == {"x": "3", "y": "4"}
    local = {v["name"]: v for v in dap.variables(scopes["Locals"])}
    values = local["values"]
    assert values["indexedVariables"] == 20
    page = dap.variables(values["variablesReference"], filter="indexed", start=5, count=3)
    assert [(v["name"], v["value"]) for v in page] == [
        ("[5]", "105"),
        ("[6]", "106"),
        ("[7]", "107"),
    ]
    assert dap.variables(values["variablesReference"], filter="named") == []
    hexed = dap.variables(scopes["Locals"], format={"hex": True})
    assert next(v["value"] for v in hexed if v["name"] == "result") == "0x6d"

    changed = dap.call(
        "setVariable", {"variablesReference": op["variablesReference"], "name": "id", "value": "77"}
    )
    assert changed["value"] == "77"
    watch = dap.call(
        "evaluate", {"expression": "op->id * 2", "frameId": frame["id"], "context": "watch"}
    )
    assert watch["result"] == "154" and watch["type"] == "int"
    dap.call("setExpression", {"expression": "count", "value": "5", "frameId": frame["id"]})
    assert (
        dap.call("evaluate", {"expression": "count", "frameId": frame["id"], "context": "hover"})[
            "result"
        ]
        == "5"
    )
    bad = dap.request(
        "evaluate", {"expression": "nosuch + 1", "frameId": frame["id"], "context": "watch"}
    )
    assert bad["success"] is False and "nosuch" in bad["message"]
    repl = dap.call("evaluate", {"expression": "bt", "frameId": frame["id"], "context": "repl"})
    assert "show_values" in repl["result"] and "main" in repl["result"]

    finished = dap.resume("stepOut", thread)
    assert finished["body"]["reason"] == "step"
    caller = dap.stack_trace(thread, 0, 1)[0]
    assert caller["name"] == "main"
    returned = dap.scope_variables(caller["id"])
    assert returned["(return value)"] == "109"  # computed before count was changed
    stepped = dap.resume("next", thread)
    assert stepped["body"]["reason"] == "step"
    assert dap.stack_trace(thread, 0, 1)[0]["line"] > caller["line"]
    stale = dap.request("variables", {"variablesReference": scopes["Locals"]})
    assert stale["success"] is False

    dap.call("setBreakpoints", {"source": {"path": source}, "breakpoints": []})
    end = dap.continue_(thread)
    assert end["event"] == "exited" and end["body"]["exitCode"] == 0
    dap.wait_event("terminated")
    output = "".join(e["body"]["output"] for e in dap.events if e["event"] == "output"
                     and e["body"]["category"] == "stdout")  # fmt: skip
    assert "shown=109" in output


def test_step_in_and_instruction_granularity(dap: DapClient, builder: Builder) -> None:
    program = builder.build(SRC)
    source = _source(builder)
    call_top = marker_line(source, "call_top")
    session = start_session(dap, program, breakpoints={source: [call_top]})
    thread = session.thread_id
    dap.resume("stepIn", thread)
    assert dap.stack_trace(thread, 0, 1)[0]["name"] == "top"
    before = dap.stack_trace(thread, 0, 1)[0]["instructionPointerReference"]
    dap.call("stepIn", {"threadId": thread, "granularity": "instruction"})
    dap.wait_stop_or_exit()
    after = dap.stack_trace(thread, 0, 1)[0]["instructionPointerReference"]
    assert int(after, 16) > int(before, 16)
    code = dap.call(
        "disassemble", {"memoryReference": after, "instructionOffset": -3, "instructionCount": 8}
    )
    instructions = code["instructions"]
    assert len(instructions) == 8 and instructions[3]["address"] == after
    assert instructions[3].get("symbol") == "top" and instructions[3]["line"] > 0
    memory = dap.call("readMemory", {"memoryReference": after, "count": 16})
    assert memory["address"] == after and memory["data"]


def test_function_breakpoint_condition_and_logpoint(dap: DapClient, builder: Builder) -> None:
    program = builder.build(SRC)
    source = _source(builder)
    loop = marker_line(source, "loop_body")
    dap.call("initialize", {"adapterID": "alice"})
    dap.call("configurationDone")  # before launch: allowed, the program waits for launch
    dap.call("setBreakpoints", {"source": {"path": source}, "breakpoints": [
        {"line": loop, "condition": "i == 7"},
        {"line": marker_line(source, "loop_first"), "logMessage": "count is {count}"},
    ]})  # fmt: skip
    dap.call("launch", launch_arguments(program))
    stop = dap.wait_stop_or_exit()
    assert stop["event"] == "stopped"
    frame = dap.stack_trace(stop["body"]["threadId"], 0, 1)[0]
    assert (
        dap.call("evaluate", {"expression": "i", "frameId": frame["id"], "context": "watch"})[
            "result"
        ]
        == "7"
    )
    logged = [e["body"]["output"] for e in dap.events if e["event"] == "output"]
    assert "count is 10\n" in logged


def test_launch_errors_and_environment(dap: DapClient, builder: Builder, tmp_path: Path) -> None:
    dap.call("initialize", {"adapterID": "alice"})
    missing = dap.request("launch", launch_arguments(tmp_path / "missing"))
    assert missing["success"] is False and missing["body"]["error"]["showUser"] is True
    program = builder.build("showenv")
    arguments: dict[str, Any] = launch_arguments(program, args=["one", "two words"])
    arguments["env"] = {"ALICE_TEST_VAR": "from-launch-json", "HOME": None}
    dap.call("launch", arguments)
    dap.call("configurationDone")
    dap.wait_event("terminated")
    output = "".join(e["body"]["output"] for e in dap.events if e["event"] == "output")
    assert "env=from-launch-json" in output and "home=unset" in output
    assert "arg[2]=two words" in output and "to stderr" in output


def test_cpp_program(dap: DapClient, builder: Builder) -> None:
    from tests.support.build_more import MoreBuilder, find_cxx

    if find_cxx() is None:
        pytest.skip("g++ not found")
    program = MoreBuilder(builder.cache_dir).build_cpp("src_cpp")
    source = str(builder.programs_dir / "src_cpp.cpp")
    dap.call("initialize", {"adapterID": "alice"})
    dap.call("launch", launch_arguments(program))
    functions = dap.call("setFunctionBreakpoints", {"breakpoints": [{"name": "ns::Counter::add"}]})
    assert functions["breakpoints"][0]["verified"]
    assert functions["breakpoints"][0]["line"] == marker_line(source, "method")
    dap.call("configurationDone")
    stop = dap.wait_stop_or_exit()
    assert stop["body"]["reason"] == "function breakpoint"
    frames = dap.stack_trace(stop["body"]["threadId"])
    assert "Counter::add" in frames[0]["name"] and frames[1]["name"] == "main"
    arguments = dap.scope_variables(frames[0]["id"], "Arguments")
    assert arguments["delta"] == "3"
    this = dap.call("evaluate", {"expression": "this->value_", "frameId": frames[0]["id"], "context": "watch"})
    assert this["result"] == "5"


def test_loaded_sources_are_the_files_on_this_machine(dap: DapClient, builder: Builder) -> None:
    program = builder.build(SRC)
    source = _source(builder)
    session = start_session(dap, program, breakpoints={source: [marker_line(source, "vars")]})
    assert session.stop is not None
    sources = dap.call("loadedSources")["sources"]
    paths = [s["path"] for s in sources]
    assert source in paths
    assert all(Path(p).is_file() for p in paths)  # libc's build-machine paths are left out


def test_goto_within_the_function(dap: DapClient, builder: Builder) -> None:
    program = builder.build(SRC)
    source = _source(builder)
    call_line, first_line = marker_line(source, "middle_call"), marker_line(source, "middle_first")
    session = start_session(dap, program, breakpoints={source: [call_line]})
    thread = session.thread_id
    elsewhere = dap.call("gotoTargets", {"source": {"path": source}, "line": marker_line(source, "leaf")})
    assert elsewhere["targets"] == []  # another function: not offered
    (target,) = dap.call("gotoTargets", {"source": {"path": source}, "line": first_line})["targets"]
    assert target["line"] == first_line
    mark = dap.mark()
    dap.call("goto", {"threadId": thread, "targetId": target["id"]})
    stop = dap.wait_stop_or_exit(mark)
    assert stop["body"]["reason"] == "goto"
    assert dap.stack_trace(thread)[0]["line"] == first_line
    bad = dap.request("goto", {"threadId": thread, "targetId": 999})
    assert bad["success"] is False
    assert dap.resume("next", thread)["body"]["reason"] == "breakpoint"  # back on it, as gdb
    assert dap.stack_trace(thread)[0]["line"] == call_line


def test_log_file_records_the_wire(builder: Builder, tmp_path: Path) -> None:
    log = tmp_path / "wire.log"
    with DapClient.spawn(alice_argv("--log-file", str(log), "--log-level", "debug")) as client:
        client.call("initialize", {"adapterID": "alice"})
    text = log.read_text()
    assert "aliceserver.wire" in text and '"command":"initialize"' in text.replace(" ", "")
