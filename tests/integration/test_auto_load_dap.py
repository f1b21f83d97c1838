"""gdb's auto-load safe path through the DAP adapter, on a C++ program built here with its
printer script (PROG-gdb.py) beside it, in a directory outside gdb's default safe path:
without `autoLoadSafePath` the script is declined (its value shown raw) and gdb's warning
and advice come as console output when the frame's variables are first asked for; with the
directory in `autoLoadSafePath` the printer shows the value and nothing is declined; a
wrong `autoLoadSafePath` fails the launch and the adapter serves on."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.support.build_more import find_cxx
from tests.support.dap_client import DapClient
from tests.support.dap_session import alice_session, launch_arguments, start_session
from tests.support.points_printer import DECLINED, STOP, build_points

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
]


@pytest.fixture
def program(tmp_path: Path) -> Path:
    """The program in the test's own directory: outside any safe path."""
    return build_points(tmp_path)


def _pt_at_stop(client: DapClient, program: Path, **extra: Any) -> str:
    """pt's value among frame 0's locals at the stop."""
    session = start_session(client, program, launch=launch_arguments(program, **extra),
                            breakpoints={program.parent / "points.cpp": [STOP]})
    frame = client.stack_trace(session.thread_id, 0, 1)[0]
    assert frame["line"] == STOP
    return client.scope_variables(frame["id"])["pt"]


def _console(client: DapClient) -> str:
    return "".join(e["body"]["output"] for e in client.events
                   if e["event"] == "output" and e["body"].get("category") == "console")


def test_script_outside_the_safe_path_is_declined(program: Path) -> None:
    script = os.path.realpath(program.parent / "points-gdb.py")
    with alice_session() as client:
        value = _pt_at_stop(client, program)
        # output events come from the engine's event thread: not ordered with responses
        client.wait_event("output", lambda e: "add-auto-load-safe-path" in e["body"]["output"])
        console = _console(client)
    assert value == "{x = 1, y = 2}"  # raw: not Point(1, 2)
    assert (f'warning: File "{script}" {DECLINED} by your `auto-load safe-path\' set to '
            '"$debugdir:$datadir/auto-load".\n') in console, console
    assert f"To enable execution of this file add\n\tadd-auto-load-safe-path {script}\n" in console, console


def test_auto_load_safe_path_trusts_the_directory(program: Path) -> None:
    with alice_session() as client:
        value = _pt_at_stop(client, program, autoLoadSafePath=[str(program.parent)])
    assert value == "Point(1, 2)"
    assert DECLINED not in _console(client)  # all the session sent, the adapter closed


def test_wrong_auto_load_safe_path_is_refused(program: Path) -> None:
    """A number is no directory: launch fails naming the argument; a right launch follows."""
    with alice_session() as client:
        client.call("initialize", {"adapterID": "alice"})
        client.wait_event("initialized")
        reply = client.request("launch", launch_arguments(program, autoLoadSafePath=5))
        assert not reply["success"] and "autoLoadSafePath" in reply["message"], reply
        assert client.threads() == []
        launch = client.send_request("launch", launch_arguments(program, autoLoadSafePath=str(program.parent)))
        path = str(program.parent / "points.cpp")
        client.call("setBreakpoints", {"source": {"path": path}, "breakpoints": [{"line": STOP}]})
        since = client.mark()
        client.call("configurationDone")
        assert client.response(launch)["success"]
        stop = client.wait_stop_or_exit(since)
        assert stop["event"] == "stopped", stop
        frame = client.stack_trace(stop["body"]["threadId"], 0, 1)[0]
        assert client.scope_variables(frame["id"])["pt"] == "Point(1, 2)"
