"""Thread names as /proc says at each stop: a thread that renames itself (PR_SET_NAME)
between stops, one that starts and ends between them; DAP's list (no pcs or cores) and
MI's (with them) alike, though the engine keeps the threads' /proc files open between stops."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.events import Stopped
from aliceserver.debuggers.ptrace.procinfo import ThreadFiles
from tests.support.build import Builder, marker_line
from tests.support.session import launch

pytestmark = [pytest.mark.timeout(120)]


def test_names_follow_renames_and_new_threads(debugger: Any, events: Any, builder: Builder) -> None:
    program = builder.build("thread_rename")
    launch(debugger, program)
    [location] = debugger.resolve_location(
        f"thread_rename.c:{marker_line('thread_rename.c', 'checkpoint')}"
    )
    debugger.insert_breakpoint(location.address)
    seen = []
    for _ in range(3):
        debugger.resume()
        stop = events.wait_for(Stopped, timeout=20)
        bare = sorted(info.name for info in debugger.threads(details=False))
        full = debugger.threads()
        assert sorted(info.name for info in full) == bare
        assert all(info.core is not None and info.pc is not None for info in full)
        assert stop.thread_id in {info.tid for info in full}
        seen.append(bare)
    assert seen == [
        ["main-thread", "renamed-1"],
        ["brief", "main-thread", "renamed-2"],
        ["main-thread", "renamed-3"],
    ]


def test_thread_files_read_anew_and_fall_back_past_their_budget() -> None:
    """Kept files read what the file says now (here renamed through its comm file); past
    the budget each read opens the file; a thread that is not there has no name."""
    gate = threading.Event()
    worker = threading.Thread(target=gate.wait)
    worker.start()
    pid, tid = os.getpid(), worker.native_id
    assert tid is not None
    comm = Path(f"/proc/{pid}/task/{tid}/comm")
    try:
        for budget in (0, 1, 64):
            files = ThreadFiles(pid, budget=budget)
            comm.write_text(f"first-{budget}")
            assert files.name(pid) and files.name(tid) == f"first-{budget}"
            comm.write_text(f"second-{budget}")
            assert files.name(tid) == f"second-{budget}"
            assert files.name_and_core(tid) == (f"second-{budget}", files.name_and_core(tid)[1])
            assert files.name_and_core(tid)[1] is not None
            files.keep_only({pid})
            assert files.name(tid) == f"second-{budget}"
            files.close()
        assert ThreadFiles(pid, budget=4).name(2**22 + 12345) == ""  # no such thread
    finally:
        gate.set()
        worker.join()
