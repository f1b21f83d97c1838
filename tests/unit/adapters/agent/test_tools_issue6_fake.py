"""The tools of issue 6 over the fake debugger: tracing (debug_trace, debug_query) and
what the command line needs (debug_select, debug_catch, debug_wait, debug_restart,
debug_console, breakpoint enable/disable, stack locals, disassembly with source)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.unit.adapters.agent.conftest import Tools

PROGRAM = "/opt/fake/prog"


@pytest.fixture(autouse=True)
def private_traces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def test_trace_add_status_query_and_the_store_goes_with_the_session(tools: Tools) -> None:
    tools.call("debug_launch", program=PROGRAM)
    tools.fail("NO_TRACE", "debug_query")
    tools.fail("NO_TRACE", "debug_trace", action="status")
    error = tools.fail("BAD_PATTERN", "debug_trace", action="add", patterns=["@nosuch"])
    assert "@usercode" in error["hint"]
    tools.fail("BAD_ARGUMENT", "debug_trace", action="add")

    added = tools.call("debug_trace", action="add", patterns=["help*", "nothing_*"])
    assert added["traced"] == ["helper"] and added["unmatched"] == ["nothing_*"]
    assert added["summary"].startswith("1 functions traced")
    store = added["store"]
    assert os.path.exists(store)

    tools.call("debug_continue", timeout=0)  # runs into the wait, past helper
    tools.call("debug_pause")
    exited = tools.call("debug_continue")
    assert exited["state"] == "exited"

    calls = tools.call("debug_query", kinds=["call"], function="helper")
    assert calls["total"] == 1 and calls["events"][0]["function"] == "helper"
    returns = tools.call("debug_query", kinds=["return"], return_is_null=False)
    assert returns["total"] == 1 and "duration_ms" in returns["events"][0]
    assert tools.call("debug_query", kinds=["stdout"])["events"][0]["text"] == "hello\n"
    assert tools.call("debug_query", kinds=["exit"])["total"] == 1
    paged = tools.call("debug_query", limit=1)
    assert paged["next_offset"] == 1 and paged["omitted"][0]["how"] == "debug_query offset=1"
    tools.fail("BAD_ARGUMENT", "debug_query", kinds=["calls"])
    tools.fail("BAD_ARGUMENT", "debug_query", function_regex="(")

    status = tools.call("debug_trace", action="status")
    assert status["functions"] == [{"name": "helper", "calls": 1}] and "sampling" not in status
    assert tools.call("debug_trace", action="remove")["untraced"] == ["helper"]
    tools.call("debug_stop")
    assert not os.path.exists(store)  # not kept: deleted with the session


def test_select_frames_and_threads_then_a_stop_selects_frame_0(tools: Tools) -> None:
    tools.call("debug_launch", program=PROGRAM, breakpoints=["helper"])
    tools.call("debug_continue")
    up = tools.call("debug_select", up=1)
    assert up["frame"] == 1 and up["location"]["function"] == "main"
    assert tools.call("debug_context")["location"]["function"] == "main"  # the selection holds
    assert tools.call("debug_stack")["selected"] == 1
    tools.fail("NO_FRAME", "debug_select", up=5)
    down = tools.call("debug_select", down=1)
    assert "frame" not in down and down["location"]["function"] == "helper"
    tools.fail("NO_FRAME", "debug_select", down=1)
    tools.fail("NO_THREAD", "debug_select", thread=99999)
    tools.call("debug_select", frame=1)
    stepped = tools.call("debug_step", kind="instruction")
    assert stepped["location"]["function"] == "helper" and "frame" not in stepped


def test_breakpoints_enable_disable_and_restart_keeps_them(tools: Tools) -> None:
    first = tools.call("debug_launch", program=PROGRAM, breakpoints=["helper"])
    disabled = tools.call("debug_breakpoint", action="disable", id=1)["breakpoint"]
    assert disabled["enabled"] is False
    tools.fail("NO_BREAKPOINT", "debug_breakpoint", action="enable", id=7)
    running = tools.call("debug_continue", timeout=0)  # helper passes: no stop there
    assert running["state"] in ("running", "stopped")
    tools.call("debug_pause")

    restarted = tools.call("debug_restart")
    assert restarted["session"] == first["session"] and restarted["restarted"] is True
    assert restarted["state"] == "not-started" and restarted["breakpoints"] == 1
    [again] = tools.call("debug_breakpoint", action="list")["breakpoints"]
    assert again["location"] == "helper" and again["enabled"] is False
    tools.call("debug_breakpoint", action="enable", id=again["id"])
    assert tools.call("debug_continue")["location"]["function"] == "helper"


def test_wait_catch_console_stack_locals_and_disassembly(tools: Tools) -> None:
    tools.call("debug_launch", program=PROGRAM, breakpoints=["helper"])
    waited = tools.call("debug_wait", timeout=0)
    assert waited["state"] == "not-started"  # nothing runs: the context at once
    tools.call("debug_continue", timeout=0)
    assert tools.call("debug_wait", timeout=30)["location"]["function"] == "helper"

    assert tools.call("debug_catch", kind="signal", signal="USR1") == {
        "session": "prog-1", "catch": "signal", "enabled": True, "signal": "SIGUSR1",
        "passed_to_program": True,
    }  # fmt: skip
    tools.fail("BAD_ARGUMENT", "debug_catch", kind="signal", signal="SIGNOPE")
    tools.call("debug_catch", kind="throw", enabled=False)
    assert tools.fakes[0].catchpoints == frozenset()

    backtrace = tools.call("debug_console", command="bt")  # gdb's console, with gdb's text
    # the program's own code without line info: gdb names no module (`from LIB` is for libraries)
    assert backtrace["tool"] == "debug_console" and backtrace["output"].splitlines()[0].endswith(" in helper ()")
    printed = tools.call("debug_console", command="p/x 255")
    assert printed["output"] == "$1 = 0xff"
    examined = tools.call("debug_console", command="x/4xb 0x404000")
    assert examined["output"] == "0x404000 <counter>:\t0x00\t0x00\t0x00\t0x00"  # gdb's x, not a hex dump
    assert tools.call("debug_console", command="x")["output"].startswith("0x404004:\t0x00")
    assert tools.call("debug_console", command="info registers rip")["output"].startswith("rip")
    assert tools.call("debug_console", command="up")["output"].startswith("#1")
    assert tools.call("debug_select")["frame"] == 1  # the console's frame is debug_select's
    tools.fail("BAD_ARGUMENT", "debug_console", command="info nonsense")

    with_locals = tools.call("debug_stack", locals=True)
    assert with_locals["frames"][0]["frame"].startswith("#0 helper")
    rows = tools.call("debug_disassemble", source=True, count=3)["instructions"]
    assert len(rows) == 3  # the fake has no line table: no source rows
