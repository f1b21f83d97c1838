"""Breakpoint conditions that call functions of a multithreaded program
(tests/programs/cond_call.c): the call holds the other thread, as gdb's scheduler-locking
during calls (gdb 13 itself loses track of the threads here: 'Couldn't get registers'), and
a breakpoint hit inside the condition's call stops there with gdb's words (those of gdb 13
on the same program without its second thread): the condition's error, the stop reported
for the conditional breakpoint at the inner frame, both hits counted, and a `continue`
that finishes the call and stops silently where it was made. gdb reports the inner
breakpoint's stop too, before the error; we report the one stop (see infcall.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.gdb import gdb_env
from tests.support.jump_patches import jump_patches as jump_patches  # the fixture
from tests.support.mi_client import MiClient
from tests.support.mi_console import mi_quote
from tests.support.mi_grammar import List, Tuple, parse_record

# Each scenario with jump patches on and off: the same stops either way.
pytestmark = [needs_gdb, pytest.mark.timeout(300), pytest.mark.usefixtures("jump_patches")]


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return builder.build("cond_call", flags=("-g", "-O0", "-pthread", "-no-pie"))


def _console(client: MiClient, command: str) -> str:
    record, seen = client.command(f"-interpreter-exec console {mi_quote(command)}")
    text = "".join(parse_record(line).text for line in seen if line.startswith("~"))
    return text + (str(record.results["msg"]) if record.cls == "error" else "")


def _client(program: Path) -> MiClient:
    client = MiClient(["-i=mi", "-q", str(program)], env=gdb_env())
    client.prompt()
    client.ok('-interpreter-exec console "unset environment PYTHONPATH"')
    return client


def test_a_condition_call_holds_the_other_threads(program: Path) -> None:
    client = _client(program)
    try:
        client.ok("-break-insert spot")
        client.ok('-break-condition 1 "held_delta() && twice(i) > 6"')  # MI's way
        client.ok("-exec-run")
        stop = client.stopped()
        assert stop.results["reason"] == "breakpoint-hit"
        assert _console(client, "print i") == "$1 = 4\n"
        assert _console(client, "print last_delta") == "$2 = 0\n"  # the ticker did not tick
        assert _console(client, "print ticks > 0") == "$3 = 1\n"  # it ran before
    finally:
        client.close()


def test_a_breakpoint_inside_a_condition_call_stops_as_gdb(program: Path) -> None:
    client = _client(program)
    try:
        client.ok('-interpreter-exec console "break spot if twice(i) > 6"')
        client.ok('-interpreter-exec console "break twice"')
        _, seen = client.command("-exec-run")
        seen += client.read_until(lambda line: line.startswith("*stopped"))
        stop = parse_record(seen[-1])
        told = "".join(parse_record(line).text for line in seen if line[:1] in "~&")
        assert told.index(
            "Error in testing breakpoint condition:\n"
            "The program being debugged stopped while in a function called from GDB.\n"
            "Evaluation of the expression containing the function\n"
            "(twice) will be abandoned.\n"
            "When the function is done executing, GDB will silently stop.\n"
        ) < told.index("Breakpoint 1, twice (x=0) at ")
        frame = stop.results["frame"]
        assert stop.results["bkptno"] == "1" and isinstance(frame, Tuple) and frame["func"] == "twice"
        stack = client.ok("-stack-list-frames").results["stack"]  # gdb's dummy frame, then the caller
        assert isinstance(stack, List)
        frames = [frame for frame in stack.values if isinstance(frame, Tuple)]
        assert [key for key, _ in frames[1].items] == ["level", "addr", "func"]
        assert [frame["func"] for frame in frames] == ["twice", "<function called from gdb>", "spot", "main"]
        listing = _console(client, "info breakpoints")
        assert listing.count("\tbreakpoint already hit 1 time\n") == 2, listing
        client.ok("-exec-continue")  # the call returns: a silent stop where it was made
        client.stopped()
        assert _console(client, "print i") == "$1 = 0\n"
        assert _console(client, "frame").startswith("#0  spot (i=0) at ")
    finally:
        client.close()
