"""gdb's console language, once, for every front end: the DAP debug console (evaluate,
context repl) and the agent's debug_console run the MI console's commands and print what
gdb 13's console prints for the same commands on the same program. A breakpoint set in
the console stops the program (DAP hears `continued` and a `stopped` that names it), a
setting changes later output, and frame selection carries from one command to the next."""

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

SOURCE = PROGRAMS_DIR / "console_hosted.c"
_MARK = "@@console@@"
# Typed at the breakpoint in main; `continue` and `next` run the program.
COMMANDS = (
    "ptype struct point", "whatis s", "p/x arr", "p *arr@3", "set $i = 3", "p $i * 2", "p $", "p s",
    "set print pretty on", "p s", "set print pretty off", "set var x = 5", "p x", "x/4xw &x",
    "list scale", "info frame", "tbreak scale", "info breakpoints",
    "continue", "bt", "up", "p x", "info frame", "down", "p total", "thread apply all bt", "next",
    "p total",
)  # fmt: skip
RUNS = ("continue", "next")
_BREAK_MAIN = (
    f"break {SOURCE.name}:{marker_line(SOURCE, 'main')}"  # typed in the console: breakpoint 1
)


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("console_hosted")


def _normalized(text: str) -> str:
    """Stack addresses (gdb adds LINES and COLUMNS to the environment), thread ids, blank
    lines and `Continuing.` (a front end's reply, not its stop) may differ."""
    text = re.sub(r"0x7ffff[0-9a-f]{7}\b", "0x7ffffSTACK", text)
    text = re.sub(r"LWP \d+", "LWP N", text)
    return "\n".join(line for line in text.splitlines() if line.strip() and line != "Continuing.")


@pytest.fixture(scope="module")
def gdb_said(prog: Path) -> list[str]:
    """What gdb's console printed for each of COMMANDS."""
    script = [_BREAK_MAIN, "run"]
    for command in COMMANDS:
        script += [f"echo {_MARK}\\n", command]
    done = theirs(["-batch", "-nx", *ex(*script), str(prog)], prog.parent)
    assert not done.stderr.strip(), done.stderr
    return [_normalized(part) for part in done.stdout.split(_MARK + "\n")[1:]]


def test_dap_debug_console_speaks_gdbs_language(prog: Path, gdb_said: list[str]) -> None:
    with DapClient.spawn(alice_argv()) as client:
        start_session(client, prog, launch=launch_arguments(prog, stop_on_entry=True))
        thread = client.threads()[0]["id"]
        mark = client.mark()
        made = client.call("evaluate", {"expression": _BREAK_MAIN, "context": "repl"})["result"]
        assert made.startswith("Breakpoint 1 at 0x"), made
        client.call("evaluate", {"expression": "continue", "context": "repl"})
        stop = client.wait_event("stopped", since=mark)[
            "body"
        ]  # the console's breakpoint stops it under DAP
        assert (stop["reason"], stop["description"]) == ("breakpoint", "Breakpoint 1"), stop
        said: list[str] = []
        for command in COMMANDS:
            frame = client.stack_trace(thread, 0, 1)[0]["id"]
            mark = client.mark()
            result = client.call(
                "evaluate", {"expression": command, "frameId": frame, "context": "repl"}
            )
            shown = result["result"]
            if (
                command in RUNS
            ):  # DAP's own execution: continued, then stopped, then gdb's stop text
                client.wait_event("continued", since=mark)
                stop = client.wait_event("stopped", since=mark)
                if command == "continue":  # the console's tbreak stopped it
                    assert stop["body"]["reason"] == "breakpoint"
                    assert stop["body"]["description"] == "Temporary breakpoint 2"
                shown += (
                    "\n"
                    + client.wait_event(
                        "output", lambda e: e["body"]["category"] == "console", since=mark
                    )["body"]["output"]
                )
            said.append(_normalized(shown))
        assert said == gdb_said
        # an expression is still an expression (with children), a forced unknown word is gdb's error
        frame = client.stack_trace(thread, 0, 1)[0]["id"]
        value = client.call(
            "evaluate", {"expression": "p->x + 1", "frameId": frame, "context": "repl"}
        )
        assert value["result"] == "4"
        failed = client.request(
            "evaluate", {"expression": "`frobnicate", "frameId": frame, "context": "repl"}
        )
        assert failed["message"] == 'Undefined command: "frobnicate".  Try "help".'


@pytest.fixture
def in_memory() -> Iterator[Callable[[Body], None]]:
    with in_memory_server() as run:
        yield run


def test_agent_debug_console_speaks_gdbs_language(
    prog: Path, gdb_said: list[str], in_memory: Callable[[Body], None]
) -> None:
    async def body(tools: AgentClient) -> None:
        await tools.call("debug_launch", program=str(prog))
        assert (await tools.call("debug_console", command=_BREAK_MAIN))["output"].startswith(
            "Breakpoint 1 at 0x"
        )
        stop = await tools.call("debug_console", command="continue")
        assert stop["location"]["line"] == marker_line(SOURCE, "main"), stop
        said: list[str] = []
        for command in COMMANDS:
            reply = await tools.call("debug_console", command=command)
            if command in RUNS:  # through the execution tools: the reply is the new context
                assert reply["tool"] in ("debug_continue", "debug_step")
                assert reply["location"]["function"] == "scale"
            said.append(_normalized(reply.get("output", "")))
        assert said == gdb_said
        up = await tools.call("debug_console", command="up")
        assert (await tools.call("debug_select"))["frame"] == 1, (
            up
        )  # the console's selection is the session's

    in_memory(body)
