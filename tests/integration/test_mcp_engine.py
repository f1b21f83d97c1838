"""The MCP tools over the real engine through the SDK's in-memory client: variables by
path with paging, set, step out with the return value, evaluate, memory, logpoints and hit
counts, run_to, and attach/detach."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.support.agent_client import AgentClient, Body, in_memory_server
from tests.support.build import Builder, marker_line

pytestmark = pytest.mark.timeout(180)

VARS_LINE = marker_line("src_basic.c", "vars")
LOOP_LINE = marker_line("src_basic.c", "loop_body")
LOOP_DONE = marker_line("src_basic.c", "loop_done")
CALL_TOP = marker_line("src_basic.c", "call_top")


def page_paths(reply: dict[str, Any]) -> list[dict[str, Any]]:
    return list(reply["variable"]["members"])


@pytest.fixture
def in_memory() -> Iterator[Callable[[Body], None]]:
    with in_memory_server() as run:
        yield run


def test_variables_set_evaluate_memory_and_step_out(
    builder: Builder, in_memory: Callable[[Body], None]
) -> None:
    program = str(builder.build("src_basic"))

    async def body(tools: AgentClient) -> None:
        await tools.call("debug_launch", program=program, breakpoints=[f"src_basic.c:{VARS_LINE}"])
        stop = await tools.call("debug_continue", timeout=60)
        assert stop["location"]["function"] == "show_values"
        assert stop["locals"]["count"] == "3" and stop["locals"]["result"] == "109"

        listed = await tools.call("debug_variables")
        names = [v["name"] for v in listed["variables"]]
        assert names[:3] == ["count", "label", "op"] and "values" in names
        copy = await tools.call("debug_variables", path="copy", depth=2)
        members = {m["name"]: m for m in copy["variable"]["members"]}
        assert members["in"]["path"] == "copy.in"
        assert [m["value"] for m in members["in"]["members"]] == ["3", "4"]
        pointer = await tools.call("debug_variables", path="op")
        assert [m["path"] for m in pointer["variable"]["members"]][:2] == ["op->id", "op->in"]
        assert [m["path"] for m in page_paths(copy)] == ["copy.id", "copy.in", "copy.ratio", "copy.name"]
        page = await tools.call("debug_variables", path="values", start=5, count=5)
        elements = page["variable"]["members"]
        assert [e["name"] for e in elements] == ["[5]", "[6]", "[7]", "[8]", "[9]"]
        assert elements[0]["value"] == "105"
        assert page["omitted"][0]["how"] == "debug_variables path=values start=10 count=5"
        await tools.fail("NO_SYMBOL", "debug_variables", path="nosuch")

        assert (await tools.call("debug_evaluate", expression="copy.in.y + 1"))["value"] == "5"
        assert (await tools.call("debug_evaluate", expression="result", format="x"))["value"] == "0x6d"
        await tools.fail("NO_SYMBOL", "debug_evaluate", expression="nosuch + 1")
        await tools.fail("BAD_EXPRESSION", "debug_evaluate", expression="count +")
        memory = await tools.call("debug_memory", address="&count", size=4)
        assert memory["hex"][0].split(": ")[1].startswith("03 00 00 00")
        await tools.fail("MEMORY_ERROR", "debug_memory", address="0x8")

        changed = await tools.call("debug_set", target="result", value="7")
        assert (changed["was"], changed["now"]) == ("109", "7")
        caller = await tools.call("debug_context", frame=1)
        assert caller["location"]["function"] == "main" and caller["frame"] == 1
        out = await tools.call("debug_step", kind="out", timeout=60)
        assert out["stop"]["returned"] == {"type": "int", "value": "7"}
        assert out["location"]["function"] == "main"
        registers = await tools.call("debug_registers", names=["rip"])
        assert int(registers["registers"]["rip"], 16) == int(out["location"]["address"], 16)
        code = await tools.call("debug_disassemble", count=4)
        assert code["instructions"][0].startswith("-> ")
        await tools.call("debug_stop")

    in_memory(body)


def test_step_into_hit_conditions_logpoints_and_run_to(
    builder: Builder, in_memory: Callable[[Body], None]
) -> None:
    program = str(builder.build("src_basic"))

    async def body(tools: AgentClient) -> None:
        await tools.call("debug_launch", program=program, breakpoints=[f"src_basic.c:{CALL_TOP}"])
        await tools.call("debug_continue", timeout=60)
        into = await tools.call("debug_step", kind="into", timeout=60)
        assert into["location"]["function"] == "top"

        third = await tools.call("debug_breakpoint", location="factorial", hit_condition="== 3")
        stop = await tools.call("debug_continue", timeout=60)
        assert stop["location"]["function"] == "factorial"
        assert stop["locals"]["n"] == "3"  # the third call: 5, 4, then 3
        # factorial x3 and main: the stack ends at main as gdb's bt (no libc frames below it)
        assert [f.split(" (")[0] for f in stop["stack"]] == ["#0 factorial", "#1 factorial", "#2 factorial", "#3 main"]
        assert not any(o["what"] == "deeper stack frames" for o in stop.get("omitted", []))
        stack = await tools.call("debug_stack", count=2)
        assert [f.split(" (")[0] for f in stack["frames"]] == ["#0 factorial", "#1 factorial"]
        assert stack["omitted"] == [{"what": "frames from #2 on", "how": "debug_stack start=2"}]
        deeper = await tools.call("debug_stack", start=3, count=1)
        assert deeper["frames"][0].startswith("#3 main")
        await tools.call("debug_breakpoint", action="remove", id=third["breakpoint"]["id"])

        await tools.call(
            "debug_breakpoint", location=f"src_basic.c:{LOOP_LINE}", log_message="i={i} sum={sum}"
        )
        await tools.call("debug_breakpoint", location="loop_sum", temporary=True)
        in_loop_sum = await tools.call("debug_continue", timeout=60)
        assert in_loop_sum["location"]["function"] == "loop_sum"
        done = await tools.call("debug_run_to", location=f"src_basic.c:{LOOP_DONE}", timeout=60)
        assert done["location"]["line"] == LOOP_DONE
        assert done["locals"]["sum"] == "45"
        assert "i=9 sum=36" in done["output"]["text"]  # the logpoint printed, never stopped
        logged = await tools.call("debug_output", stream="console")
        assert logged["text"].count("i=") == 10
        listed = (await tools.call("debug_breakpoint", action="list"))["breakpoints"]
        assert [b["log_message"] for b in listed if "log_message" in b] == ["i={i} sum={sum}"]
        await tools.call("debug_stop")

    in_memory(body)


def test_attach_and_detach(builder: Builder, in_memory: Callable[[Body], None]) -> None:
    program = builder.build("longrun")
    process = subprocess.Popen([str(program)], stdout=subprocess.PIPE)
    try:
        assert process.stdout is not None
        process.stdout.readline()  # its first tick: in main's loop (attached earlier, in ld.so)

        async def body(tools: AgentClient) -> None:
            attached = await tools.call("debug_attach", pid=process.pid, timeout=60)
            assert attached["session"] == "longrun-1"
            assert attached["stop"]["reason"] == "pause"
            frames = (await tools.call("debug_stack"))["frames"]
            assert any(" main " in f"{frame} " or "main (" in frame for frame in frames)
            ended = await tools.call("debug_stop")
            assert ended["program"] == f"detached (pid {process.pid})"

        in_memory(body)
        assert process.poll() is None  # detached, it runs on
    finally:
        process.kill()
        process.wait()


def test_attach_to_nothing_fails_with_a_code(in_memory: Callable[[Body], None]) -> None:
    async def body(tools: AgentClient) -> None:
        error = await tools.fail("ATTACH_FAILED", "debug_attach", pid=2**22 + 1)
        assert "ptrace_scope" in error["hint"]
        assert (await tools.call("debug_sessions"))["sessions"] == []

    in_memory(body)
