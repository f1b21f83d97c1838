"""The MI session over the FakeDebugger: the protocol logic without a real process."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from aliceserver.adapters.mi.session import SessionConfig
from tests.support.fake_debugger import FakeDebugger
from tests.support.mi_grammar import PROMPT, List, Tuple
from tests.support.mi_inprocess import InProcessMi


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "fakeprog"
    path.write_bytes(b"")
    return path


@pytest.fixture
def session(program: Path) -> Iterator[InProcessMi]:
    mi = InProcessMi(FakeDebugger, SessionConfig(program=str(program), quiet=True))
    lines = mi.prompt()
    assert lines[0] == '=thread-group-added,id="i1"'
    yield mi
    mi.close()
    assert mi.errors(("hello",)) == []


def test_breakpoint_run_interrupt_exit(session: InProcessMi) -> None:
    result, seen = session.command("1-break-insert helper")
    assert result.token == "1" and result.cls == "done"
    bkpt = result.results["bkpt"]
    assert isinstance(bkpt, Tuple) and bkpt["at"] == "<helper>" and bkpt["addr"] == "0x000000000040101c"
    result, seen = session.command("2-exec-run")
    assert seen[-3:] == ["2^running", '*running,thread-id="all"', PROMPT]
    assert '=thread-group-started,id="i1",pid="4242"' in seen
    stop = session.stopped()
    assert stop.results["reason"] == "breakpoint-hit" and stop.results["bkptno"] == "1"
    frame = stop.results["frame"]
    assert isinstance(frame, Tuple) and frame["func"] == "helper" and frame.get("file") is None
    assert session.next_line() == PROMPT  # sync mode
    result, _ = session.command("3-stack-list-frames")
    stack = result.results["stack"]
    assert isinstance(stack, List) and [f["func"] for f in stack.values if isinstance(f, Tuple)] == ["helper", "main"]
    session.command("4-exec-continue")  # runs to the instruction that waits
    result, seen = session.command("5-exec-interrupt")
    assert result.cls == "done"
    stop = session.stopped()
    assert stop.results["reason"] == "signal-received" and stop.results["signal-name"] == "SIGINT"  # gdb 13 (all-stop)
    session.prompt()
    session.command("6-exec-continue")
    lines = session.until(lambda line: line.startswith("*stopped"))
    assert lines[-1] == '*stopped,reason="exited",exit-code="03"'
    assert "hello" in session.lines  # the program's output, raw between records
    session.prompt()


def test_errors_and_tokens(session: InProcessMi) -> None:
    result, seen = session.command("9-nosuch")
    assert seen[0] == '9^error,msg="Undefined MI command: nosuch",code="undefined-command"'
    result, _ = session.command("10-exec-next")
    assert result.results["msg"] == "The program is not being run."
    result, _ = session.command("11-break-insert nosuchfunc")
    assert result.results["msg"] == 'Function "nosuchfunc" not defined.'
    result, seen = session.command('12-interpreter-exec console "echo hi\\n"')
    assert seen[0] == '~"hi\\n"' and result.token == "12"
    result, _ = session.command("13-info-gdb-mi-command var-create")
    assert result.results["command"] == Tuple([("exists", "true")])
    result, _ = session.command("14-gdb-set nosuch 1")
    assert result.results["msg"] == 'No symbol "nosuch" in current context.'
    result, _ = session.command("15-data-evaluate-expression 1+2")
    assert result.results["value"] == "3"


def test_console_breakpoints_and_settings(session: InProcessMi) -> None:
    _, seen = session.command("break helper")
    assert seen[0] == '&"break helper\\n"'
    assert seen[1].startswith('~"Breakpoint 1 at 0x40101c')
    assert seen[2].startswith('=breakpoint-created,bkpt={number="1"')
    _, seen = session.command("set print pretty on")
    assert '=cmd-param-changed,param="print pretty",value="on"' in seen
    result, _ = session.command("-gdb-show print pretty")
    assert result.results["value"] == "on"
    _, seen = session.command("info breakpoints")
    assert any("helper" in line for line in seen)
    result, seen = session.command("-break-delete 1")
    assert not any(line.startswith("=breakpoint-deleted") for line in seen)  # not to the asker
    result, _ = session.command("-break-list")
    table = result.results["BreakpointTable"]
    assert isinstance(table, Tuple) and table["nr_rows"] == "0"


def test_mi_async_holds_no_prompt_after_stop(program: Path) -> None:
    mi = InProcessMi(FakeDebugger, SessionConfig(program=str(program), quiet=True, before=["set mi-async on"]))
    try:
        mi.prompt()
        mi.command("-break-insert helper")
        mi.command("-exec-run")
        mi.stopped()
        result, seen = mi.command("-list-target-features")
        assert seen[0] == '^done,features=["async"]'
    finally:
        mi.close()
    assert mi.errors(("hello",)) == []


def test_input_ending_ends_the_session(program: Path) -> None:
    mi = InProcessMi(FakeDebugger, SessionConfig(program=str(program), quiet=True))
    mi.prompt()
    mi.client.close()
    mi._server.join(30)
    assert not mi._server.is_alive() and mi.exit_code == 0
