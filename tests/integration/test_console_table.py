"""One breakpoint table under DAP's debug console, as in gdb's own DAP: the client's
breakpoints (setBreakpoints, setFunctionBreakpoints) and the console's share one numbering
and one `info breakpoints`; `delete N` on a client's one removes it and tells the client
(a `breakpoint` event, reason removed), enable/disable/condition on one are refused (the
client keeps those); a dprintf prints as an output event and the client hears of no stop;
a command list runs at the stop, on the client's breakpoints too. gdb, given the same
breakpoints in the same order, prints the same."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.adapter_process import alice_argv
from tests.support.agent_client import AgentClient, Body, in_memory_server
from tests.support.batch import needs_gdb, theirs
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.dap_client import DapClient
from tests.support.dap_session import launch_arguments, start_session

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

SOURCE = PROGRAMS_DIR / "console_run.c"
_MARK = "@@console-table@@"
_CLIENT_LINE = marker_line(SOURCE, "outer_ret")  # the client's breakpoint 1, and `inner` its 2
# Typed in the console once the program stopped at main (breakpoint 3), then in inner (2).
COMMANDS = (
    "info breakpoints", "delete 2", 'dprintf inner,"v=%d\\n",v', "commands 1\nsilent\np v\nend",
    "continue", "continue", "info breakpoints",
)  # fmt: skip


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("console_run")


def _normalized(text: str) -> str:
    """Without gdb's libthread_db lines (no counterpart here) and `Continuing.`."""
    return "\n".join(
        line for line in text.splitlines()
        if line.strip() and line != "Continuing." and "libthread_db" not in line
    )  # fmt: skip


@pytest.fixture(scope="module")
def gdb_said(prog: Path, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    script = [f"break {SOURCE.name}:{_CLIENT_LINE}", "break inner", "break main", "run", "continue"]
    for command in COMMANDS:
        script += [f"echo {_MARK}\\n", command]
    path = tmp_path_factory.mktemp("gdb") / "commands.gdb"
    path.write_text("\n".join(script) + "\n")
    done = theirs(["-batch", "-nx", "-x", str(path), str(prog)], prog.parent)
    return [_normalized(part) for part in done.stdout.split(_MARK + "\n")[1:]]


def _console_text(client: DapClient, since: int) -> str:
    return "".join(
        e["body"]["output"] for e in client.events[since:]
        if e["event"] == "output" and e["body"].get("category") == "console"
    )  # fmt: skip


def _evaluate(client: DapClient, text: str, frame: int | None = None) -> dict[str, Any]:
    arguments: dict[str, Any] = {"expression": text, "context": "repl"}
    if frame is not None:
        arguments["frameId"] = frame
    return client.request("evaluate", arguments)


def test_dap_console_and_client_share_one_table(prog: Path, gdb_said: list[str]) -> None:
    with DapClient.spawn(alice_argv()) as client:
        start_session(
            client, prog, launch=launch_arguments(prog, stop_on_entry=True),
            breakpoints={SOURCE: [_CLIENT_LINE]}, function_breakpoints=["inner"],
        )  # fmt: skip
        thread = client.threads()[0]["id"]
        made = client.call("evaluate", {"expression": "break main", "context": "repl"})["result"]
        assert made.startswith("Breakpoint 3 at 0x"), made  # after the client's 1 and 2
        for _ in range(2):  # main (the console's 3), then inner (the client's 2)
            mark = client.mark()
            client.call("continue", {"threadId": thread})
            client.wait_event("stopped", since=mark)
        said: list[str] = []
        for command in COMMANDS:
            frame = client.stack_trace(thread, 0, 1)[0]["id"]
            mark = client.mark()
            reply = _evaluate(client, command, frame)
            assert reply["success"], reply
            shown = reply["body"]["result"]
            if command == "continue":
                stop = client.wait_event("stopped", since=mark)["body"]
                assert stop["hitBreakpointIds"] == [1], stop  # not the dprintf's stop
                _evaluate(client, "echo")  # after its reply, every event of the stop is in
                assert [e["event"] for e in client.events[mark:]].count("stopped") == 1
                shown += "\n" + _console_text(client, mark)
            if command == "delete 2":
                removed = client.wait_event("breakpoint", since=mark)["body"]
                assert removed["reason"] == "removed" and removed["breakpoint"]["id"] == 2
            said.append(_normalized(shown))
        assert said == gdb_said
        for refused in ("disable 1", "condition 1 v > 1", "ignore 1 2"):
            failed = _evaluate(client, refused)
            assert not failed["success"]
            assert failed["message"].startswith("Breakpoint 1 was set by the client: "), failed
        # the client's next breakpoint takes the next number of the one table
        added = client.call("setFunctionBreakpoints", {"breakpoints": [{"name": "inner"}, {"name": "main"}]})
        assert [bp["id"] for bp in added["breakpoints"]] == [5, 6]


# A dprintf and a command list typed in the console: gdb's output, and the client hears of
# one stop only (the command list's breakpoint), never of the dprintf's.
SCRIPTED = (
    'dprintf inner,"v=%d\\n",v', f"break {SOURCE.name}:{marker_line(SOURCE, 'after_loop')}",
    "commands 3\nsilent\np total\nend", "continue",
)  # fmt: skip


@pytest.fixture(scope="module")
def gdb_scripted(prog: Path, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    script = ["break main", "run"]
    for command in SCRIPTED:
        script += [f"echo {_MARK}\\n", command]
    path = tmp_path_factory.mktemp("gdb") / "scripted.gdb"
    path.write_text("\n".join(script) + "\n")
    done = theirs(["-batch", "-nx", "-x", str(path), str(prog)], prog.parent)
    said = [_normalized(part) for part in done.stdout.split(_MARK + "\n")[1:]]
    assert len(said) == len(SCRIPTED), done.stdout
    return said


def test_dap_console_dprintf_and_commands(prog: Path, gdb_scripted: list[str]) -> None:
    with DapClient.spawn(alice_argv()) as client:
        start_session(client, prog, launch=launch_arguments(prog, stop_on_entry=True))
        client.call("evaluate", {"expression": "break main", "context": "repl"})
        mark = client.mark()
        client.call("evaluate", {"expression": "continue", "context": "repl"})
        client.wait_event("stopped", since=mark)
        said: list[str] = []
        for command in SCRIPTED:
            mark = client.mark()
            reply = _evaluate(client, command)
            assert reply["success"], reply
            shown = reply["body"]["result"]
            if command == "continue":
                stop = client.wait_event("stopped", since=mark)["body"]
                assert stop["description"] == "Breakpoint 3", stop
                _evaluate(client, "echo")  # after its reply, every event of the stop is in
                events = [e["event"] for e in client.events[mark:]]
                assert events.count("stopped") == 1 and "continued" in events, events
                shown += "\n" + _console_text(client, mark)
            said.append(_normalized(shown))
        assert said == gdb_scripted


AGENT_COMMANDS = ("continue", "continue", "info breakpoints", "delete 1", "info breakpoints")


@pytest.fixture(scope="module")
def gdb_agent(prog: Path, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    script = [f"break {SOURCE.name}:{_CLIENT_LINE}", "break main", "starti"]
    for command in AGENT_COMMANDS:
        script += [f"echo {_MARK}\\n", command]
    path = tmp_path_factory.mktemp("gdb") / "agent.gdb"
    path.write_text("\n".join(script) + "\n")
    done = theirs(["-batch", "-nx", "-x", str(path), str(prog)], prog.parent)
    said = [_normalized(part) for part in done.stdout.split(_MARK + "\n")[1:]]
    assert len(said) == len(AGENT_COMMANDS), done.stdout
    return said


@pytest.fixture
def in_memory() -> Iterator[Callable[[Body], None]]:
    with in_memory_server() as run:
        yield run


def test_agent_console_lists_debug_breakpoints(
    prog: Path, gdb_agent: list[str], in_memory: Callable[[Body], None]
) -> None:
    async def body(tools: AgentClient) -> None:
        await tools.call("debug_launch", program=str(prog))
        made = await tools.call("debug_breakpoint", location=f"{SOURCE.name}:{_CLIENT_LINE}")
        assert made["breakpoint"]["id"] == 1, made
        typed = await tools.call("debug_console", command="break main")
        assert typed["output"].startswith("Breakpoint 2 at 0x"), typed  # after debug_breakpoint's 1
        said = []
        for command in AGENT_COMMANDS:
            said.append(_normalized((await tools.call("debug_console", command=command)).get("output", "")))
        assert said == gdb_agent
        listed = await tools.call("debug_breakpoint", action="list")
        assert [bp["location"] for bp in listed["breakpoints"]] == ["main"], listed
        added = (await tools.call("debug_breakpoint", location="inner"))["breakpoint"]["id"]
        refused = await tools.fail("BAD_ARGUMENT", "debug_console", command=f"disable {added}")
        assert refused["message"].startswith(f"Breakpoint {added} was set by debug_breakpoint: "), refused

    in_memory(body)
