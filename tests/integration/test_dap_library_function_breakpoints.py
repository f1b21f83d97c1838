"""setFunctionBreakpoints on a shared library's function before the library loads (`puts`
called by mi_prog.c): the program's PLT stub stands in for it in the engine (as in gdb), but
the client hears the breakpoint pending, as lldb-vscode-16 says, until the library loads
and a `breakpoint` changed event gives the function's own place."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.adapter_process import alice_argv, find_lldb_vscode
from tests.support.build import Builder
from tests.support.dap_client import DapClient
from tests.support.dap_session import launch_arguments

pytestmark = pytest.mark.timeout(120)


@contextmanager
def _session(argv: list[str], program: Path, tmp_path: Path) -> Iterator[tuple[DapClient, dict[str, Any]]]:
    client = DapClient.spawn(argv, strict_seq=False, stderr=tmp_path / f"{Path(argv[0]).name}.log")
    try:
        client.call("initialize", {"adapterID": "alice", "linesStartAt1": True, "columnsStartAt1": True,
                                   "pathFormat": "path"})  # fmt: skip
        client.call("launch", launch_arguments(program))
        answer = client.call("setFunctionBreakpoints", {"breakpoints": [{"name": "puts"}]})
        yield client, answer["breakpoints"][0]
    finally:
        client.close()


def test_library_function_is_pending_until_its_library_loads(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("mi_prog")
    with _session(alice_argv(), program, tmp_path) as (client, set_answer):
        assert set_answer["verified"] is False and "instructionReference" not in set_answer
        assert "shared library" in set_answer["message"]
        client.call("configurationDone")
        changed = client.wait_event("breakpoint", lambda e: e["body"]["breakpoint"]["id"] == set_answer["id"])
        assert changed["body"]["reason"] == "changed" and changed["body"]["breakpoint"]["verified"] is True
        stop = client.wait_stop_or_exit()
        assert stop["event"] == "stopped" and stop["body"]["hitBreakpointIds"] == [set_answer["id"]]
        frames = client.call("stackTrace", {"threadId": stop["body"]["threadId"], "levels": 1})["stackFrames"]
        where = int(frames[0]["instructionPointerReference"], 16)
        assert where == int(changed["body"]["breakpoint"]["instructionReference"], 16)


def test_lldb_vscode_says_the_same_at_first(builder: Builder, tmp_path: Path) -> None:
    lldb = find_lldb_vscode()
    if lldb is None:
        pytest.skip("lldb-vscode not installed: it is the reference")
    program = builder.build("mi_prog")
    with _session([lldb], program, tmp_path) as (_client, set_answer):
        assert set_answer["verified"] is False
