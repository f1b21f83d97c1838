"""The agent tools over the fake debugger: sessions, breakpoints, execution with stop
waiting, inspection, output cursors and errors with stable codes.

The fake program: main prints "hello", calls helper (which stores 1 to `counter` at
0x404000), then waits until interrupted, and exits with 3.
"""

from __future__ import annotations

from aliceserver.adapters.agent import build_tools
from tests.support.fake_debugger import FakeDebugger
from tests.support.fake_program import FakeProgram
from tests.unit.adapters.agent.conftest import Tools

PROGRAM = "/opt/fake/prog"


def test_no_session_yet(tools: Tools) -> None:
    error = tools.fail("NO_SESSION", "debug_context")
    assert "debug_launch" in error["hint"]
    assert tools.call("debug_sessions")["sessions"] == []


def test_launch_holds_the_program_and_sessions_get_readable_ids(tools: Tools) -> None:
    first = tools.call("debug_launch", program=PROGRAM)
    assert first["session"] == "prog-1"
    assert first["state"] == "not-started"
    assert "debug_continue" in first["message"]
    second = tools.call("debug_launch", program=PROGRAM)
    assert second["session"] == "prog-2"
    error = tools.fail("AMBIGUOUS_SESSION", "debug_continue")
    assert "prog-1" in error["message"] and "session=" in error["hint"]
    listed = tools.call("debug_sessions")["sessions"]
    assert [s["id"] for s in listed] == ["prog-1", "prog-2"]
    assert tools.fail("NO_SESSION", "debug_context", session="prog-9")["hint"]
    tools.call("debug_stop", session="prog-1")
    assert [s["id"] for s in tools.call("debug_sessions")["sessions"]] == ["prog-2"]
    assert tools.call("debug_context")["session"] == "prog-2"  # the only one left


def test_continue_to_a_breakpoint_then_step_watch_pause_and_exit(tools: Tools) -> None:
    launched = tools.call("debug_launch", program=PROGRAM, breakpoints=["helper"])
    [bp] = launched["breakpoints"]
    assert bp["id"] == 1 and bp["resolved"][0].startswith("helper (0x")

    stop = tools.call("debug_continue")
    assert stop["state"] == "stopped"
    assert stop["stop"] == {"reason": "breakpoint", "breakpoints": [1]}
    assert stop["location"]["function"] == "helper"
    assert stop["stack"][0].startswith("#0 helper") and stop["stack"][1].startswith("#1 main")
    assert stop["output"]["text"] == "hello\n"
    assert any("no line information" in o["what"] for o in stop["omitted"])
    again = tools.call("debug_context")
    assert "output" not in again  # shown once

    watch = tools.call("debug_watch", expression="0x404000")["watchpoint"]
    assert watch["value"] == "4210688" and watch["size"] == 8
    hit = tools.call("debug_step", count=5)  # helper's store is its second instruction
    assert hit["steps_done"] == 2  # the watchpoint ended the series
    assert hit["stop"]["reason"] == "watchpoint"
    assert hit["stop"]["watch"]["old"] == "0" and hit["stop"]["watch"]["new"] == "1"
    tools.call("debug_watch", action="remove", id=watch["id"])
    assert tools.call("debug_watch", action="list")["watchpoints"] == []

    running = tools.call("debug_continue", timeout=0)
    assert running["state"] == "running"
    assert "debug_pause" in running["message"]
    tools.fail("NOT_STOPPED", "debug_stack")
    tools.fail("NOT_STOPPED", "debug_variables")
    paused = tools.call("debug_pause")
    assert paused["stop"]["reason"] == "pause"
    assert tools.call("debug_breakpoint", action="list")["breakpoints"][0]["hits"] == 1

    exited = tools.call("debug_continue")
    assert exited["state"] == "exited" and exited["exit"] == "exit code 3"
    error = tools.fail("NO_PROCESS", "debug_stack")
    assert "debug_launch" in error["hint"]
    ended = tools.call("debug_stop")
    assert ended["exit"] == "exit code 3" and ended["last_output"] == "hello\n"


def test_stop_on_entry_and_instruction_level_tools(tools: Tools) -> None:
    entry = tools.call("debug_launch", program=PROGRAM, stop_on_entry=True)
    assert entry["stop"]["reason"] == "entry"
    assert entry["location"] == {"function": "main", "module": PROGRAM, "address": "0x401000"}
    registers = tools.call("debug_registers", names=["rip", "$rsp"])["registers"]
    assert registers["rip"] == "0x401000" and set(registers) == {"rip", "rsp"}
    assert "xmm0" in tools.call("debug_registers", vector=True)["registers"]
    tools.fail("BAD_ARGUMENT", "debug_registers", names=["nope"])
    dump = tools.call("debug_memory", address="0x401000", size=8)
    [row] = dump["hex"]
    assert row.startswith("0x000000401000: 0f 1f 40 00 0f 1f 40 00 ") and row.endswith("|..@...@.|")
    tools.fail("MEMORY_ERROR", "debug_memory", address="0x10")
    tools.call("debug_memory", address="0x404000", write="2a 00")
    assert tools.call("debug_evaluate", expression="0x404000")["value"] == "4210688"
    assert tools.call("debug_memory", address="0x404000", size=2)["hex"][0].split(":")[1].split()[:2] == ["2a", "00"]
    code = tools.call("debug_disassemble", count=3)
    assert code["instructions"][0].startswith("-> 0x401000 <main+0>: nop")
    assert code["omitted"][0]["how"] == "debug_disassemble location=0x40100c"
    helper = tools.call("debug_disassemble", location="helper", count=1)["instructions"]
    assert helper[0].startswith("   0x40101c <helper+0>")
    assert tools.call("debug_evaluate", expression="$rip", format="x")["value"] == "0x401000"
    tools.fail("NO_SYMBOL", "debug_evaluate", expression="nosuch")
    threads = tools.call("debug_threads")["threads"]
    assert threads == [{"id": 4242, "name": "prog", "state": "stopped", "current": True,
                        "at": "#0 main (prog 0x401000)"}]
    assert tools.call("debug_stack")["frames"] == ["#0 main (prog 0x401000)"]
    stepped = tools.call("debug_step", kind="instruction", count=2)
    assert stepped["location"]["address"] == "0x401008" and stepped["steps_done"] == 2


def test_breakpoint_add_list_remove_and_errors(tools: Tools) -> None:
    tools.call("debug_launch", program=PROGRAM)
    added = tools.call("debug_breakpoint", location="helper", condition="1 == 1", hit_count=2)
    entry = added["breakpoint"]
    assert entry["condition"] == "1 == 1" and entry["hit_count"] == ">= 2"
    by_address = tools.call("debug_breakpoint", location="0x401004", temporary=True)["breakpoint"]
    assert by_address["location"] == "*0x401004" and by_address["temporary"] is True
    pending = tools.call("debug_breakpoint", location="not_a_function")["breakpoint"]
    assert "check the spelling" in pending["pending"]
    error = tools.fail("NO_LOCATION", "debug_breakpoint", location="nosuch.c:12")
    assert "file:line" in error["hint"]
    ids = [b["id"] for b in tools.call("debug_breakpoint", action="list")["breakpoints"]]
    assert len(ids) == 3
    tools.call("debug_breakpoint", action="remove", id=ids[-1])
    tools.fail("NO_BREAKPOINT", "debug_breakpoint", action="remove", id=99)
    tools.fail("BAD_ARGUMENT", "debug_breakpoint")
    stop = tools.call("debug_continue")  # the temporary one at 0x401004 comes first
    assert stop["stop"]["reason"] == "breakpoint"
    assert stop["location"]["address"] == "0x401004"


def test_run_to_and_step_out(tools: Tools) -> None:
    tools.call("debug_launch", program=PROGRAM)
    at_helper = tools.call("debug_run_to", location="helper")
    assert at_helper["location"]["function"] == "helper"
    tools.fail("NO_LOCATION", "debug_run_to", location="nowhere_at_all")


def test_output_cursor_tail_and_streams(tools: Tools) -> None:
    tools.call("debug_launch", program=PROGRAM)
    session = tools.sessions.get(None)
    for n in range(5):
        session.output.append("stdout", f"line {n}\n")
    session.output.append("stderr", "warning\n")
    first = tools.call("debug_output", max_chars=14)
    assert first["text"] == "line 0\nline 1\n" and first["more"] > 0
    rest = tools.call("debug_output", cursor=first["next_cursor"])
    assert rest["text"].startswith("line 2\n") and rest["dropped"] == 0
    assert tools.call("debug_output", tail=2)["text"] == "line 4\nwarning\n"
    assert tools.call("debug_output", stream="stderr")["text"] == "warning\n"


def test_a_failed_launch_says_why_and_leaves_no_session() -> None:
    program = FakeProgram(FakeProgram.default().instructions, path="/bin/real")
    registry, sessions = build_tools(lambda: FakeDebugger(program))
    tools = Tools(registry, sessions)
    error = tools.fail("LAUNCH_FAILED", "debug_launch", program="/bin/other")
    assert "No such file" in error["message"] and "program path" in error["hint"]
    tools.fail("BAD_ARGUMENT", "debug_launch", program="no_such_program_here")
    tools.fail("BAD_ARGUMENT", "debug_launch", program="/bin/real", cwd="/no/such/dir")
    assert tools.call("debug_sessions")["sessions"] == []
    assert tools.call("debug_launch", program="/bin/real")["session"] == "real-1"
    sessions.close_all()
