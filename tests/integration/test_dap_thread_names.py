"""DAP's `threads` at each stop shows what /proc says then, as lldb-vscode does, though the
engine gives unchanged threads the ThreadInfo of the stop before and the adapter sends the
body it made of those again: a thread that renamed itself (PR_SET_NAME, as
pthread_setname_np does) between two stops shows its new name, one started between stops
appears and one ended disappears."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.events import Stopped
from aliceserver.debuggers.ptrace.procinfo import ThreadFiles
from tests.support.build import Builder, marker_line
from tests.support.dap_client import DapClient
from tests.support.dap_schema import require_schema
from tests.support.dap_session import alice_session, start_session
from tests.support.session import launch

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def dap(tmp_path: Path) -> Iterator[DapClient]:
    require_schema()
    with alice_session(stderr=tmp_path / "adapter.log") as client:
        yield client


def _names(listed: list[dict[str, Any]]) -> list[str]:
    """The names shown, without the ' [tid]' each ends with (its id)."""
    shown = []
    for entry in listed:
        name, _, tid = entry["name"].rpartition(" ")
        assert tid == f"[{entry['id']}]", entry
        shown.append(name)
    return sorted(shown)


def test_dap_threads_follow_renames_and_new_and_ended_threads(dap: DapClient, builder: Builder) -> None:
    program = builder.build("thread_rename")
    session = start_session(dap, program, function_breakpoints=["checkpoint"])
    seen = []
    for round_ in range(3):
        if round_:
            assert dap.continue_(session.thread_id)["event"] == "stopped"
        listed = dap.threads()
        assert dap.threads() == listed  # asked again at the same stop
        seen.append(_names(listed))
    assert seen == [
        ["main-thread", "renamed-1"],
        ["brief", "main-thread", "renamed-2"],
        ["main-thread", "renamed-3"],
    ]


def test_engine_keeps_the_thread_info_of_unchanged_threads(debugger: Any, events: Any, builder: Builder) -> None:
    """Between two stops only the renamed thread gets a new ThreadInfo (what lets the
    adapter send its last body again); the others are the same objects."""
    program = builder.build("thread_rename")
    launch(debugger, program)
    [location] = debugger.resolve_location(f"thread_rename.c:{marker_line('thread_rename.c', 'checkpoint')}")
    debugger.insert_breakpoint(location.address)
    debugger.resume()
    events.wait_for(Stopped, timeout=20)
    first = {info.name: info for info in debugger.threads(details=False)}
    debugger.resume()
    events.wait_for(Stopped, timeout=20)
    second = {info.name: info for info in debugger.threads(details=False)}
    assert sorted(second) == ["brief", "main-thread", "renamed-2"]
    assert second["main-thread"] is first["main-thread"]
    assert second["renamed-2"].tid == first["renamed-1"].tid


def test_listing_reads_each_name_anew() -> None:
    """A thread renamed through its comm file (pthread_setname_np on another thread) is
    listed with its new name; a thread that is not there has none."""
    gate = threading.Event()
    worker = threading.Thread(target=gate.wait)
    worker.start()
    pid, tid = os.getpid(), worker.native_id
    assert tid is not None
    comm = Path(f"/proc/{pid}/task/{tid}/comm")
    try:
        for budget in (0, 64):
            files = ThreadFiles(pid, budget=budget)
            comm.write_text("before")
            main, named = files.listing([pid, tid])
            comm.write_text("after")
            again = files.listing([pid, tid, 2**22 + 12345])
            assert named.name == "before" and [info.name for info in again[1:]] == ["after", ""]
            assert again[0] is main
            files.close()
    finally:
        gate.set()
        worker.join()
