"""The agent's stack ends at the program's main as gdb's bt does (`backtrace past-main
off`): debug_stack (also paged from below main), the stop context's preview, debug_select
and the console's bt, compared with gdb 13's bt on the same program."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.support.agent_client import AgentClient, Body, in_memory_server
from tests.support.batch import needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.gdb import backtrace, gdb_env, run_gdb

pytestmark = [pytest.mark.timeout(180), needs_gdb]

STOP = f"entry_expr.c:{marker_line('entry_expr.c', 'scaled')}"


@pytest.fixture
def in_memory() -> Iterator[Callable[[Body], None]]:
    with in_memory_server() as run:
        yield run


def test_agent_stack_ends_at_main_like_gdb(builder: Builder, in_memory: Callable[[Body], None]) -> None:
    program = builder.build("entry_expr")
    gdb_bt = run_gdb(program, [f"break {STOP}", "run", "bt"], env=gdb_env())[2]
    gdb_frames = backtrace(gdb_bt)
    expected = [frame.function for frame in gdb_frames]
    assert expected == ["scaled", "main"]

    async def body(tools: AgentClient) -> None:
        await tools.call("debug_launch", program=str(program), breakpoints=[STOP])
        stop = await tools.call("debug_continue", timeout=60)
        assert [f.split()[1] for f in stop["stack"]] == expected
        frames = (await tools.call("debug_stack"))["frames"]
        assert [f.split()[1] for f in frames] == expected
        assert "omitted" not in await tools.call("debug_stack", count=2)
        assert (await tools.call("debug_stack", start=2))["frames"] == []
        console = await tools.call("debug_console", command="bt")  # gdb's own bt text
        assert console["output"] == gdb_bt.output.rstrip("\n")
        await tools.fail("NO_FRAME", "debug_select", frame=2)

    in_memory(body)
