"""Agent sessions on a program behind a real gdbserver: debug_connect / debug_disconnect
through the MCP server (the SDK's in-memory client) and `aliceserver-cli connect` /
`disconnect` through the real session daemon. What they show must be what gdb 13 shows
over a gdbserver of the same program."""

from __future__ import annotations

import os
import re
import socket
import subprocess
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from tests.integration.test_cli_daemon import Cli, cli  # noqa: F401 (the daemon fixture)
from tests.support.agent_client import AgentClient, Body, in_memory_server
from tests.support.batch import needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.gdb import gdb_path
from tests.support.gdbserver import assert_gone, gdbserver

pytestmark = [needs_gdb, pytest.mark.timeout(240)]

ADD_BODY = marker_line("mi_prog.c", "add_body")
LOOP = marker_line("mi_prog.c", "loop")


def gdb_over_a_stub(program: Path, commands: Sequence[str]) -> list[str]:
    """gdb's output of each command, connected to a gdbserver of `program` of its own."""
    with gdbserver(program) as server:
        argv = [str(gdb_path()), "-nx", "-batch", "-ex", "set pagination off", "-ex", "set width 0",
                "-ex", "set sysroot /", "-ex", f"target remote {server.address}"]  # fmt: skip
        for index, command in enumerate(commands):
            argv += ["-ex", f"echo @@{index}\\n", "-ex", command]
        done = subprocess.run([*argv, "-ex", "echo @@\\n", "-ex", "kill", str(program)], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=120, stdin=subprocess.DEVNULL)  # fmt: skip
    parts = done.stdout.split("@@")[1:-1]
    assert len(parts) == len(commands), done.stdout
    return [part.partition("\n")[2].strip() for part in parts]


def values_of(text: str) -> dict[str, str]:
    return dict(re.findall(r"^(\w+) = (.*)$", text, re.M))


def history_value(text: str) -> str:
    return re.sub(r"^\$\d+ = ", "", text.strip())


def gdb_functions(bt: str) -> list[str]:
    return re.findall(r"^#\d+\s+(?:0x[0-9a-f]+ in )?(\w+) \(", bt, re.M)


def our_functions(frames: Sequence[str]) -> list[str]:
    return [re.match(r"#\d+ (\S+)", text).group(1) for text in frames]  # type: ignore[union-attr]


@pytest.fixture
def in_memory() -> Iterator[Callable[[Body], None]]:
    with in_memory_server() as run:
        yield run


_COMMANDS = ("break add", "continue", "bt", "info args", "finish", "info locals", "print counter",
             "print pt")  # fmt: skip


def test_mcp_connect_break_step_inspect_like_gdb(builder: Builder, in_memory: Callable[[Body], None]) -> None:
    program = builder.build("mi_prog")
    _b, _c, bt, args, finish, main_locals, counter, point = gdb_over_a_stub(program, _COMMANDS)

    with gdbserver(program) as server:
        assert server.inferior_pid is not None

        async def body(tools: AgentClient) -> None:
            connected = await tools.call("debug_connect", target=server.address, program=str(program),
                                         breakpoints=["add"])  # fmt: skip
            assert connected["pid"] == server.inferior_pid and connected["target"] == server.address
            assert connected["state"] == "stopped" and connected["session"] == "mi_prog-1"
            assert connected["breakpoints"][0]["id"] == 1
            stop = await tools.call("debug_continue")
            assert stop["location"]["function"] == "add" and stop["location"]["line"] == ADD_BODY
            assert stop["stop"]["reason"] == "breakpoint"
            assert {name: stop["locals"][name] for name in ("a", "b")} == values_of(args)
            assert our_functions(stop["stack"])[:2] == gdb_functions(bt)[:2] == ["add", "main"]
            console = await tools.call("debug_console", command="info args")
            assert console["output"] == args
            out = await tools.call("debug_step", kind="out")
            returned = re.search(r"Value returned is \$\d+ = (.*)", finish)
            assert returned is not None and out["stop"]["returned"]["value"] == returned.group(1)
            assert out["location"]["line"] == LOOP
            assert {name: out["locals"][name] for name in values_of(main_locals)} == values_of(main_locals)
            assert (await tools.call("debug_evaluate", expression="counter"))["value"] == history_value(counter)
            assert (await tools.call("debug_evaluate", expression="pt"))["value"] == history_value(point)
            sessions = (await tools.call("debug_sessions"))["sessions"]
            assert [(s["id"], s["pid"]) for s in sessions] == [("mi_prog-1", server.inferior_pid)]
            left = await tools.call("debug_disconnect")
            assert left["ended"] and server.address in left["program"]
            await tools.fail("NO_SESSION", "debug_context")
            # the stub kept it, stopped where we left it: a new session finds it there
            again = await tools.call("debug_connect", target=server.address, program=str(program))
            assert again["pid"] == server.inferior_pid and again["location"]["line"] == LOOP
            ended = await tools.call("debug_stop", mode="kill")
            assert ended["program"] == f"killed (pid {server.inferior_pid})"

        in_memory(body)
        assert server.process.wait(timeout=20) is not None  # its program killed: gdbserver ends
        assert_gone(server.inferior_pid)


def test_mcp_extended_connect_runs_the_program(builder: Builder, in_memory: Callable[[Body], None]) -> None:
    program = builder.build("mi_prog")
    with gdbserver(None, multi=True) as server:

        async def body(tools: AgentClient) -> None:
            refused = await tools.fail("NO_PROCESS", "debug_connect", target=server.address, extended=True)
            assert "program=PATH" in refused["hint"]
            started = await tools.call("debug_connect", target=server.address, program=str(program), extended=True,
                                       breakpoints=[f"mi_prog.c:{LOOP}"])  # fmt: skip
            assert started["state"] == "not-started"
            stop = await tools.call("debug_continue")
            assert stop["location"]["line"] == LOOP and stop["locals"]["total"] == "0"
            await tools.call("debug_breakpoint", action="remove", id=1)
            done = await tools.call("debug_continue")
            assert done["state"] == "exited" and done["exit"] == "exit code 0"
            await tools.call("debug_stop")

        in_memory(body)
        assert server.process.poll() is None  # --multi serves on


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_mcp_bad_targets_fail_in_gdbs_words(builder: Builder, in_memory: Callable[[Body], None]) -> None:
    port = _closed_port()

    async def body(tools: AgentClient) -> None:
        refused = await tools.fail("TARGET_ERROR", "debug_connect", target=f"127.0.0.1:{port}")
        assert refused["message"] == f"127.0.0.1:{port}: Connection refused."
        assert "HOST:PORT" in refused["hint"]
        await tools.fail("BAD_ARGUMENT", "debug_connect", target="  ")
        await tools.fail("NO_SESSION", "debug_disconnect")
        assert (await tools.call("debug_sessions"))["sessions"] == []

    in_memory(body)


def test_cli_connect_break_continue_disconnect(cli: Cli, builder: Builder) -> None:  # noqa: F811
    program = builder.build("mi_prog")
    _b, _c, _bt, args, *_ = gdb_over_a_stub(program, _COMMANDS)
    with gdbserver(program) as server:
        assert server.inferior_pid is not None
        connected = cli.ok("connect", server.address, str(program), "--break", "add")
        assert connected.startswith("mi_prog-1: stopped"), connected
        stop = cli.ok("continue")
        assert stop.splitlines()[0].startswith(f"mi_prog-1: stopped (breakpoint 1) in add at mi_prog.c:{ADD_BODY}")
        assert cli.ok("raw", "info", "args").strip() == args
        assert cli.ok("print", "a", "+", "b").strip() == "a + b = 10   (int)"
        left = cli.ok("disconnect")
        assert left.startswith("mi_prog-1: ended, left to the stub") and server.address in left
        assert server.process.poll() is None and os.path.exists(f"/proc/{server.inferior_pid}")
        code, _out, err = cli.run("context")
        assert code != 0 and "NO_SESSION" in err
        cli.ok("connect", server.address, str(program))
        stopped = cli.ok("stop")  # a program the stub started is killed, as gdb kills it
        assert stopped.startswith(f"mi_prog-2: ended, killed (pid {server.inferior_pid})"), stopped
        assert server.process.wait(timeout=20) is not None
        assert_gone(server.inferior_pid)
