"""The breakpoints and watchpoints typed in the hosted console (DAP's debug console, the
agent's debug_console) live on over the client's restart as gdb's live on over `run`:
set again in the new process, their hit counts cleared; gdb, restarted with `run` at the
same point, prints the same table and the same stops."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.adapter_process import alice_argv
from tests.support.agent_client import AgentClient, Body, in_memory_server
from tests.support.batch import needs_gdb, theirs
from tests.support.build import Builder
from tests.support.dap_client import DapClient
from tests.support.dap_session import launch_arguments, start_session

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_MARK = "@@console-restart@@"
BEFORE = ("break inner", "watch counter", "continue")  # typed at main, before the restart
AFTER = ("info breakpoints", "continue", "continue", "continue")  # at main, in the new process


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("console_run")


def _normalized(text: str) -> str:
    """Column padding aside (a watchpoint's empty Address column is not padded here yet)."""
    text = re.sub(r" {2,}", " ", text)
    return "\n".join(line for line in text.splitlines() if line.strip() and line != "Continuing.")


@pytest.fixture(scope="module")
def gdb_said(prog: Path, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    script = ["break main", "run", *BEFORE, "run"]
    for command in AFTER:
        script += [f"echo {_MARK}\\n", command]
    path = tmp_path_factory.mktemp("gdb") / "commands.gdb"
    path.write_text("\n".join(script) + "\n")
    done = theirs(["-batch", "-nx", "-x", str(path), str(prog)], prog.parent)
    said = [_normalized(part) for part in done.stdout.split(_MARK + "\n")[1:]]
    assert len(said) == len(AFTER), done.stdout
    return said


def _console_run(client: DapClient, command: str) -> str:
    mark = client.mark()
    shown = client.call("evaluate", {"expression": command, "context": "repl"})["result"]
    if command == "continue":
        client.wait_event("stopped", since=mark)
        client.call("evaluate", {"expression": "echo", "context": "repl"})  # the stop's events are in
        shown += "\n" + "".join(
            e["body"]["output"] for e in client.events[mark:]
            if e["event"] == "output" and e["body"].get("category") == "console"
        )  # fmt: skip
    return _normalized(shown)


def test_dap_restart_keeps_the_consoles_breakpoints(prog: Path, gdb_said: list[str]) -> None:
    with DapClient.spawn(alice_argv()) as client:
        start_session(client, prog, launch=launch_arguments(prog, stop_on_entry=True))
        for command in ("break main", "continue", *BEFORE):
            _console_run(client, command)
        mark = client.mark()
        client.call("restart", {})
        client.wait_event("stopped", lambda e: e["body"]["reason"] == "entry", since=mark)
        assert _console_run(client, "continue").startswith("Breakpoint 1, main ()")
        assert [_console_run(client, command) for command in AFTER] == gdb_said


@pytest.fixture
def in_memory() -> Iterator[Callable[[Body], None]]:
    with in_memory_server() as run:
        yield run


def test_agent_restart_keeps_the_consoles_breakpoints(
    prog: Path, gdb_said: list[str], in_memory: Callable[[Body], None]
) -> None:
    async def body(tools: AgentClient) -> None:
        await tools.call("debug_launch", program=str(prog))
        for command in ("break main", "continue", *BEFORE):
            await tools.call("debug_console", command=command)
        await tools.call("debug_restart")
        stop = await tools.call("debug_console", command="continue")
        assert stop["output"].startswith("Breakpoint 1, main ()"), stop
        said = []
        for command in AFTER:
            said.append(_normalized((await tools.call("debug_console", command=command)).get("output", "")))
        assert said == gdb_said

    in_memory(body)
