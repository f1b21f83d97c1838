"""gdb's `x` (aliceserver/adapters/gdbcommands/examine.py) against gdb 13 on the same stop:
the module itself over the engine, then MI's console, the DAP debug console and the agent's
debug_console, which run the same code."""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aliceserver.adapters.agent import build_tools
from aliceserver.adapters.agent.registry import ToolRegistry
from aliceserver.adapters.gdbcommands.examine import examine
from aliceserver.adapters.gdbcommands.selection import ExamineMemory, Selection
from aliceserver.debuggers.events import Stopped
from aliceserver.errors import AliceError
from aliceserver.serve import ptrace_debugger
from tests.support.build import Builder, marker_line
from tests.support.dap_session import repl_at
from tests.support.gdb import gdb_env, gdb_path, run_gdb
from tests.support.mi_client import MiClient
from tests.support.session import launch

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.both_backends,
]

SOURCE = "examine.c"
# In order: a bare `x` and the ones without an address go on from the one before.
EXAMINES = [
    "x/s msg", "x/2s text", "x/4xw buf", "x/4dw buf", "x/4uw buf", "x/4ow buf", "x/2tw buf",
    "x/8xb buf", "x/3xh buf", "x/2xg buf", "x/4dw table", "x/2fg ratios", "x/2f ratios",
    "x/s greeting", "x/2a handlers", "x/2i main", "x/3i $pc", "x/4c msg", "x/4zw buf",
    "x/2xw &table[1]", "x", "x/3dw", "x/2zg buf", "x/3cb msg", "x/2ub msg", "x/2dh buf",
    "x/1xw tick", "x/2xw main", "x/2ab handlers", "x/10xw buf", "x/9xb buf", "x/5dg buf",
    "x/8ob buf", "x/2f table", "x/3fw ratios", "x/2fh buf", "x/3s msg", "x/x msg",
    "x/2c text", "x/-2xw &buf[2]", "x/a $sp", "x/2 buf", "x/2s 0",
]  # fmt: skip


def _break_line() -> int:
    return marker_line(SOURCE, "examine")


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return builder.build("examine")


@pytest.fixture(scope="module")
def gdb_says(program: Path) -> dict[str, str]:
    """What gdb prints for each of EXAMINES, run in order at the marked line."""
    commands = [f"break {SOURCE}:{_break_line()}", "run", *EXAMINES, "x/2xw 0", "bt"]
    replies = run_gdb(program, commands, env=gdb_env(), cwd=os.getcwd())
    said = {}
    for reply in replies[2:]:
        said[reply.command] = reply.output.rstrip("\n") + (f"\nERROR {reply.error}" if reply.error else "")
    return said


def _ours(debugger: Any, where: Selection, memory: ExamineMemory, command: str) -> str:
    shown: list[str] = []
    try:
        examine(debugger, where, memory, command[1:], shown.append)
    except AliceError as error:
        return "".join(shown) + f"\nERROR {error}"
    return "".join(shown).rstrip("\n")


def test_x_prints_what_gdb_prints(debugger: Any, events: Any, program: Path, gdb_says: dict[str, str]) -> None:
    launch(debugger, program, env=gdb_env(), cwd=os.getcwd())
    debugger.insert_location_breakpoint(f"{SOURCE}:{_break_line()}")
    debugger.resume()
    stop = events.wait_for(Stopped, timeout=30)
    where, memory = Selection(stop.thread_id, 0), ExamineMemory()
    for command in [*EXAMINES, "x/2xw 0"]:
        ours = _ours(debugger, where, memory, command)
        if command == "x/2xw 0":  # gdb prints the line up to the unit it cannot read
            assert ours == "0x0:\t\nERROR Cannot access memory at address 0x0"
            assert gdb_says[command].startswith("0x0:\t")
            continue
        assert ours == gdb_says[command], command


@pytest.mark.live_only(reason="no program runs: there is no stop to write a core of")
def test_x_needs_an_address_first(debugger: Any) -> None:
    with pytest.raises(AliceError, match=r"Argument required \(starting display address\)\."):
        examine(debugger, Selection(None), ExamineMemory(), "", lambda text: None)


# --- the two consoles --------------------------------------------------------------------
def test_dap_console_x_is_gdbs(tmp_path: Path, builder: Builder, program: Path, gdb_says: dict[str, str]) -> None:
    commands = ["x/s msg", "x/2s text", "x/4xw buf", "x/4dw buf", "x/2i main", "x/2fg ratios"]
    ours = repl_at(program, builder.programs_dir / SOURCE, _break_line(), commands, tmp_path / "adapter.log")
    theirs = [_unstacked(gdb_says[command]) for command in commands]
    assert list(zip(commands, map(_unstacked, ours), strict=True)) == list(zip(commands, theirs, strict=True))


def _unstacked(text: str) -> str:
    """The adapter's launch environment is not quite gdb's: the stack may lie elsewhere."""
    return re.sub(r"0x7ff[0-9a-f]{9}", "<stack>", text)


def test_mi_console_x_is_gdbs(program: Path, gdb_says: dict[str, str]) -> None:
    mi = MiClient(["-i=mi", "-q", str(program)], cwd=program.parent)
    try:
        mi.prompt()
        mi.ok(f"-break-insert {SOURCE}:{_break_line()}")
        mi.ok("-exec-run")
        mi.stopped()
        # Static data, so the environment (and the stack) does not matter here.
        for command in ("x/2i main", "x/4dw table", "x/2xw &table[1]", "x", "x/2a handlers", "x/s greeting"):
            _, seen = mi.command(f'-interpreter-exec console "{command}"')
            printed = "".join(ast.literal_eval(line[1:]) for line in seen if line.startswith("~"))
            assert printed.rstrip("\n") == gdb_says[command], command
    finally:
        assert mi.close() == 0


# --- the agent's debug_console -----------------------------------------------------------
@pytest.fixture
def agent() -> Iterator[ToolRegistry]:
    registry, sessions = build_tools(ptrace_debugger)
    try:
        yield registry
    finally:
        sessions.close_all()


def _call(agent: ToolRegistry, tool: str, **arguments: Any) -> dict[str, Any]:
    reply = agent.call(tool, arguments)
    assert not reply.is_error, reply.data
    return reply.data


def _console(agent: ToolRegistry, command: str) -> str:
    reply = _call(agent, "debug_console", command=command)
    assert reply["tool"] == "debug_console", reply  # gdb's text, not another tool's reply
    return str(reply["output"])


def test_agent_console_x_is_gdbs(agent: ToolRegistry, program: Path, gdb_says: dict[str, str]) -> None:
    _call(agent, "debug_launch", program=str(program), cwd=os.getcwd(), breakpoints=[f"{SOURCE}:{_break_line()}"])
    _call(agent, "debug_continue", timeout=60)
    # In EXAMINES' order: the bare `x` and `x/3dw` go on from `x/2xw &table[1]`.
    for command in ("x/s msg", "x/2s text", "x/4dw buf", "x/8xb buf", "x/2fg ratios", "x/2i main", "x/3i $pc",
                    "x/2a handlers", "x/4c msg", "x/2xw &table[1]", "x", "x/3dw", "x/s greeting"):  # fmt: skip
        assert _unstacked(_console(agent, command)) == _unstacked(gdb_says[command]), command
    failed = agent.call("debug_console", {"command": "x/2xw 0"})
    assert failed.is_error and failed.data["error"] == "MEMORY_ERROR"
    assert failed.data["message"] == "0x0:\tCannot access memory at address 0x0"  # as gdb's console shows it
    # A long x stops at a line within the reply's budget; a bare x goes on from there.
    long = _call(agent, "debug_console", command="x/4000xb main")
    lines = long["output"].split("\n")
    assert 40 < len(lines) < 500 and long["omitted"][0]["how"] == "debug_console command=x (a bare x goes on there)"
    assert _console(agent, "x").split(":")[0] == f"{int(lines[0].split()[0], 16) + 8 * len(lines):#x}"
    # bt ends at main as gdb's (the runtime's frames below it are not the program's)
    shown = [line for line in _console(agent, "bt").splitlines() if line.startswith("#")]  # gdb's own bt text
    said = [line for line in gdb_says["bt"].splitlines() if line.startswith("#")]
    assert [f.split()[1] for f in shown] == [line.split()[1] for line in said] == ["main"]


def test_agent_console_x_examines_the_selected_frame(agent: ToolRegistry, builder: Builder) -> None:
    program = builder.build("src_basic")
    _call(agent, "debug_launch", program=str(program), breakpoints=[f"src_basic.c:{marker_line('src_basic.c', 'leaf')}"])
    stop = _call(agent, "debug_continue", timeout=60)
    assert _console(agent, "x/i $pc").startswith(f"=> {stop['location']['address']} <leaf+")
    caller = _call(agent, "debug_select", up=1)["location"]
    shown = _console(agent, "x/i $pc")  # $pc and the => mark are the selected frame's
    assert shown.startswith(f"=> {caller['address']} <{caller['function']}+"), shown
    after = _console(agent, "x")  # the next instruction
    assert after.startswith("   0x") and int(after.split()[0], 16) > int(caller["address"], 16)
