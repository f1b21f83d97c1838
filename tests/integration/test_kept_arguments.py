"""A parked thread's frame-0 arguments are kept from one stop to the next while its
registers and the memory they were read from are the same (keptarguments.py): here main
writes that memory between the stops while the thread stays parked, registers unchanged.
Its arguments must show the new values: under MI as gdb 13 shows them, under DAP with
children read through references of the stop they are shown at."""

from __future__ import annotations

import platform
from pathlib import Path

import pytest

from tests.support.adapter_process import alice_argv
from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.dap_client import DapClient
from tests.support.dap_session import start_session
from tests.support.mi_client import MiClient, mi_stopped_at
from tests.support.mi_grammar import List, Tuple

pytestmark = [
    pytest.mark.skipif(platform.machine() != "x86_64", reason="the program's futex wait is x86-64 assembly"),
    pytest.mark.timeout(120),
]
STOPS = 3


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("parked_changed")


def _parked_args(mi: MiClient) -> list[tuple[str, str]]:
    """-thread-info's arguments of the thread in wait_parked, then -stack-list-arguments'."""
    threads = mi.ok("-thread-info").results["threads"]
    assert isinstance(threads, List)
    seen: list[tuple[str, str]] = []
    for thread in threads.values:
        assert isinstance(thread, Tuple)
        frame = thread["frame"]
        if isinstance(frame, Tuple) and str(frame["func"]) == "wait_parked":
            args = frame["args"]
            assert isinstance(args, List)
            seen += [(str(a["name"]), str(a["value"])) for a in args.values if isinstance(a, Tuple)]
            listed = mi.ok(f"-stack-list-arguments --thread {thread['id']} 1 0 0").results["stack-args"]
            assert isinstance(listed, List)
            seen.append(("listed", str(listed.values)))
    return seen


def _mi_session(prog: Path, gdb: bool) -> list[list[tuple[str, str]]]:
    stops = []
    with mi_stopped_at(prog, "stopped", prog.parent, gdb=gdb) as mi:
        for stop in range(STOPS):
            if stop:
                mi.ok("-exec-continue")
                mi.stopped()
            stops.append(_parked_args(mi))
    return stops


@needs_gdb
def test_mi_shows_a_parked_threads_arguments_anew_where_their_memory_changed(prog: Path) -> None:
    ours, theirs = _mi_session(prog, gdb=False), _mi_session(prog, gdb=True)
    assert ours == theirs
    values = [dict(stop) for stop in ours]
    assert [v["count"] for v in values] == ["1", "2", "2"]
    assert [v["text"].endswith('"one"') for v in values] == [True, False, False]
    assert values[1]["text"].endswith('"two"')


def _dap_arguments(client: DapClient) -> tuple[dict[str, str], dict[str, str]]:
    """The parked thread's frame-0 arguments, and the members of what `where` points to."""
    for thread in client.threads():
        frames = client.stack_trace(int(thread["id"]), 0, 1)
        if frames and frames[0]["name"].startswith("wait_parked"):
            scope = next(s for s in client.scopes(int(frames[0]["id"])) if s["name"] == "Arguments")
            args = client.variables(int(scope["variablesReference"]))
            where = next(v for v in args if v["name"] == "where")
            pointed = client.variables(int(where["variablesReference"]))
            if len(pointed) == 1 and pointed[0].get("variablesReference"):  # `*where`, then its members
                pointed = client.variables(int(pointed[0]["variablesReference"]))
            return {str(v["name"]): str(v["value"]) for v in args}, {str(v["name"]): str(v["value"]) for v in pointed}
    raise AssertionError("no thread in wait_parked")


def test_dap_reads_children_of_kept_arguments_at_the_stop_they_are_shown(prog: Path) -> None:
    client = DapClient.spawn(alice_argv(), cwd=prog.parent, name="aliceserver")
    try:
        started = start_session(client, prog, function_breakpoints=["stopped"])
        seen = []
        for stop in range(STOPS):
            if stop:
                client.continue_(started.thread_id)
            seen.append(_dap_arguments(client))
    finally:
        client.close()
    assert [args["count"] for args, _ in seen] == ["1", "2", "2"]
    assert [members["count"] for _, members in seen] == ["1", "20", "30"]
    assert '"two"' in seen[2][0]["text"] and '"one"' in seen[0][0]["text"]
