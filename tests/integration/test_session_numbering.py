"""One breakpoint numbering per session (the session core's), as gdb numbers every
breakpoint, watchpoint and catchpoint in one count: the agent's debug_breakpoint and its
debug_console, and a DAP client and its debug console, never give one number twice."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.adapter_process import alice_argv
from tests.support.agent_client import AgentClient, Body, in_memory_server
from tests.support.batch import ex, needs_gdb, theirs
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.dap_client import DapClient
from tests.support.dap_session import launch_arguments, start_session

pytestmark = pytest.mark.timeout(300)

SOURCE = PROGRAMS_DIR / "console_run.c"


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("console_run")


@pytest.fixture
def in_memory() -> Iterator[Callable[[Body], None]]:
    with in_memory_server() as run:
        yield run


def _numbers(table: str) -> list[str]:
    return [line.split()[0] for line in table.splitlines()[1:] if line[:1].isdigit()]


def test_agent_breakpoints_follow_the_consoles_watchpoint(
    prog: Path, in_memory: Callable[[Body], None]
) -> None:
    async def body(tools: AgentClient) -> None:
        await tools.call("debug_launch", program=str(prog))
        watched = await tools.call("debug_console", command="watch counter")
        assert watched["output"].startswith("Hardware watchpoint 1: counter"), watched
        made = await tools.call("debug_breakpoint", location="inner")
        assert made["breakpoint"]["id"] == 2, made  # gdb's number, after the watchpoint's 1
        typed = await tools.call("debug_console", command="break outer")
        assert typed["output"].startswith("Breakpoint 3 at 0x"), typed
        table = (await tools.call("debug_console", command="info breakpoints"))["output"]
        assert _numbers(table) == ["1", "2", "3"], table
        listed = (await tools.call("debug_breakpoint", action="list"))["breakpoints"]
        assert [bp["id"] for bp in listed] == [2, 3], listed
        stop = await tools.call("debug_continue")
        assert stop["stop"]["breakpoints"] == [3], stop  # outer is reached before inner
        await tools.call("debug_console", command="delete 2")  # the agent's, from the console
        listed = (await tools.call("debug_breakpoint", action="list"))["breakpoints"]
        assert [bp["id"] for bp in listed] == [3], listed
        await tools.call("debug_breakpoint", action="remove", id=3)  # the console's, from the agent
        table = (await tools.call("debug_console", command="info breakpoints"))["output"]
        assert _numbers(table) == ["1"], table

    in_memory(body)


def _gdb_number(prog: Path, *commands: str) -> str:
    """The number gdb gives the last breakpoint of `commands`."""
    done = theirs(["-batch", "-nx", *ex(*commands), str(prog)], prog.parent)
    return done.stdout.strip().splitlines()[-1].split()[1]


@needs_gdb
def test_dap_console_never_reuses_a_number_the_client_deleted(prog: Path) -> None:
    outer, outer_ret = marker_line(SOURCE, "outer"), marker_line(SOURCE, "outer_ret")
    theirs_said = _gdb_number(
        prog, f"break {SOURCE.name}:{outer}", f"break {SOURCE.name}:{outer_ret}", "delete 2", "break inner"
    )
    assert theirs_said == "3"
    with DapClient.spawn(alice_argv()) as client:
        start_session(client, prog, launch=launch_arguments(prog, stop_on_entry=True),
                      breakpoints={SOURCE: [outer, outer_ret]})  # fmt: skip
        kept = client.call("setBreakpoints", {"source": {"path": str(SOURCE)}, "breakpoints": [{"line": outer}]})
        assert [bp["id"] for bp in kept["breakpoints"]] == [1], kept  # the client deleted its 2
        made = client.call("evaluate", {"expression": "break inner", "context": "repl"})["result"]
        assert made.startswith(f"Breakpoint {theirs_said} at 0x"), made
        again = client.call("setFunctionBreakpoints", {"breakpoints": [{"name": "outer"}]})
        assert [bp["id"] for bp in again["breakpoints"]] == [4], again


@needs_gdb
def test_agent_watchpoints_are_numbered_and_listed_with_the_breakpoints(
    prog: Path, in_memory: Callable[[Body], None]
) -> None:
    done = theirs(["-batch", "-nx", *ex("break outer", "run", "watch counter", "break inner"), str(prog)], prog.parent)
    assert "Hardware watchpoint 2: counter" in done.stdout and "\nBreakpoint 3 at 0x" in done.stdout, done.stdout

    async def body(tools: AgentClient) -> None:
        await tools.call("debug_launch", program=str(prog))
        await tools.call("debug_breakpoint", location="outer")
        await tools.call("debug_continue")
        watch = (await tools.call("debug_watch", expression="counter"))["watchpoint"]
        assert watch["id"] == 2, watch
        typed = await tools.call("debug_console", command="break inner")
        assert typed["output"].startswith("Breakpoint 3 at 0x"), typed
        table = (await tools.call("debug_console", command="info breakpoints"))["output"]
        assert _numbers(table) == ["1", "2", "3"], table
        assert "hw watchpoint  keep y                      counter" in table, table
        stop = await tools.call("debug_continue")
        assert stop["stop"]["breakpoints"] == [3], stop  # inner(0) leaves counter as it was
        await tools.call("debug_console", command="delete 1 3")
        stop = await tools.call("debug_continue")
        assert stop["stop"]["watch"]["id"] == 2, stop
        await tools.call("debug_console", command="delete 2")
        assert (await tools.call("debug_watch", action="list"))["watchpoints"] == []

    in_memory(body)
