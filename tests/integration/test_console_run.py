"""The run commands typed in the hosted gdb console (DAP's debug console, the agent's
debug_console) act as gdb's own: `finish` after `up` finishes the selected frame and
prints `Run till exit from #1 ...` and `Value returned is $1 = ...`; until LOCATION,
advance LOCATION and jump LOCATION run (DAP hears `continued` then `stopped`) and print
what gdb's console prints; kill ends the program as the client's stop button does."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.adapter_process import alice_argv
from tests.support.agent_client import AgentClient, Body, in_memory_server
from tests.support.batch import ex, needs_gdb, theirs
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.dap_client import DapClient
from tests.support.dap_session import launch_arguments, start_session

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

SOURCE = PROGRAMS_DIR / "console_run.c"
_MARK = "@@console-run@@"
# Typed at the first stop in inner (breakpoint 1, typed in the console too).
COMMANDS = (
    "up", "finish", f"until {marker_line(SOURCE, 'after_loop')}",
    f"advance {marker_line(SOURCE, 'print')}", f"jump {marker_line(SOURCE, 'print')}",
)  # fmt: skip
RUNS = ("finish", "until", "advance", "jump")


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("console_run")


def _normalized(text: str) -> str:
    text = re.sub(r"process \d+", "process N", text)
    return "\n".join(line for line in text.splitlines() if line.strip())


@pytest.fixture(scope="module")
def gdb_said(prog: Path) -> list[str]:
    """gdb's console, typed at (from_tty: not -batch), on one unlimited line width."""
    script = ["set width 0", "break inner", "run"]
    for command in COMMANDS:
        script += [f"echo {_MARK}\\n", command]
    done = theirs(["-nx", "-q", *ex(*script, f"echo {_MARK}\\n", "kill", "quit"), str(prog)], prog.parent)
    parts = [_normalized(part) for part in done.stdout.split(_MARK + "\n")[1:]]
    assert len(parts) == len(COMMANDS) + 1, done.stdout
    assert parts[-1].endswith("[Inferior 1 (process N) killed]"), parts[-1]
    return parts[:-1]


def test_dap_console_runs_as_gdb(prog: Path, gdb_said: list[str]) -> None:
    with DapClient.spawn(alice_argv()) as client:
        start_session(client, prog, launch=launch_arguments(prog, stop_on_entry=True))
        thread = client.threads()[0]["id"]
        client.call("evaluate", {"expression": "break inner", "context": "repl"})
        mark = client.mark()
        client.call("evaluate", {"expression": "continue", "context": "repl"})
        client.wait_event("stopped", since=mark)
        said: list[str] = []
        for command in COMMANDS:
            frame = client.stack_trace(thread, 0, 1)[0]["id"]  # the client's focus stays on frame 0
            mark = client.mark()
            shown = client.call("evaluate", {"expression": command, "frameId": frame, "context": "repl"})["result"]
            if command.split()[0] in RUNS:
                client.wait_event("continued", since=mark)
                client.wait_event("stopped", since=mark)
                shown += "\n" + client.wait_event(
                    "output", lambda e: e["body"]["category"] == "console", since=mark
                )["body"]["output"]
            said.append(_normalized(shown))
        assert said == gdb_said
        mark = client.mark()
        killed = client.call("evaluate", {"expression": "kill", "context": "repl"})["result"]
        assert _normalized(killed) == "[Inferior 1 (process N) killed]"
        client.wait_event("exited", since=mark)
        client.wait_event("terminated", since=mark)


@pytest.fixture
def in_memory() -> Iterator[Callable[[Body], None]]:
    with in_memory_server() as run:
        yield run


def test_agent_console_runs_as_gdb(
    prog: Path, gdb_said: list[str], in_memory: Callable[[Body], None]
) -> None:
    async def body(tools: AgentClient) -> None:
        await tools.call("debug_launch", program=str(prog))
        await tools.call("debug_console", command="break inner")
        await tools.call("debug_console", command="continue")
        said: list[str] = []
        for command in COMMANDS:
            reply = await tools.call("debug_console", command=command)
            said.append(_normalized(reply.get("output", "")))
        assert said == gdb_said
        finished = said[1]
        assert finished.startswith("Run till exit from #1 ") and "Value returned is $1 = 8" in finished

    in_memory(body)
