"""gdb's auto-load safe path through the agent tools, on the C++ program of
tests/support/points_printer.py (its printer script points-gdb.py beside it, outside gdb's default safe
path): without `auto_load_safe_path` the script is declined, the value shown raw and gdb's
warning and advice in the session's console output; with the directory in
`auto_load_safe_path` the printer shows the value and nothing is declined."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.support.agent_client import AgentClient, Body, in_memory_server
from tests.support.build_more import find_cxx
from tests.support.points_printer import DECLINED, STOP, build_points

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
]


@pytest.fixture
def program(tmp_path: Path) -> Path:
    return build_points(tmp_path)


@pytest.fixture
def tools() -> Iterator[Callable[[Body], None]]:
    with in_memory_server() as run:
        yield run


def _pt_at_stop(tools: Callable[[Body], None], program: Path, **extra: Any) -> tuple[str, str]:
    """pt's value in the stop's locals and in debug_variables, and the console output."""
    seen: dict[str, str] = {}

    async def body(agent: AgentClient) -> None:
        await agent.call("debug_launch", program=str(program), breakpoints=[f"{program}.cpp:{STOP}"], **extra)
        stop = await agent.call("debug_continue", timeout=60)
        assert stop["location"]["line"] == STOP, stop
        listed = {v["name"]: v["value"] for v in (await agent.call("debug_variables"))["variables"]}
        assert listed["pt"] == stop["locals"]["pt"], (listed, stop)
        seen["pt"] = listed["pt"]
        console = ""
        for _ in range(50):  # the debugger's output reaches the buffer from the session's event thread
            console = (await agent.call("debug_output", stream="console"))["text"]
            if "add-auto-load-safe-path" in console or "auto_load_safe_path" in extra:
                break
            await anyio.sleep(0.1)
        seen["console"] = console
        await agent.call("debug_stop")

    tools(body)
    return seen["pt"], seen["console"]


def test_script_outside_the_safe_path_is_declined(program: Path, tools: Callable[[Body], None]) -> None:
    script = os.path.realpath(program.parent / "points-gdb.py")
    value, console = _pt_at_stop(tools, program)
    assert value == "{x = 1, y = 2}"  # raw: not Point(1, 2)
    assert (f'warning: File "{script}" {DECLINED} by your `auto-load safe-path\' set to '
            '"$debugdir:$datadir/auto-load".\n') in console, console
    assert f"To enable execution of this file add\n\tadd-auto-load-safe-path {script}\n" in console, console


def test_auto_load_safe_path_trusts_the_directory(program: Path, tools: Callable[[Body], None]) -> None:
    value, console = _pt_at_stop(tools, program, auto_load_safe_path=[str(program.parent)])
    assert value == "Point(1, 2)"
    assert DECLINED not in console, console
