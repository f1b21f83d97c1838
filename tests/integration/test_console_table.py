"""One breakpoint table under DAP's debug console, as in gdb's own DAP: the client's
breakpoints (setBreakpoints, setFunctionBreakpoints) and the console's share one numbering
and one `info breakpoints`; `delete N` on a client's one removes it and tells the client
(a `breakpoint` event, reason removed), enable/disable/condition on one are refused (the
client keeps those); a dprintf prints as an output event and the client hears of no stop;
a command list runs at the stop, on the client's breakpoints too. gdb, given the same
breakpoints in the same order, prints the same."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.batch import needs_gdb, theirs
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.dap_client import DapClient, alice_argv, launch_arguments, start_session

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
    return "\n".join(line for line in text.splitlines() if line.strip() and line != "Continuing.")


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
