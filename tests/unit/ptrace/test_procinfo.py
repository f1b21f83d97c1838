"""/proc's view of a thread: its name and core read from one stat file are the comm file's
name and stat's core, even for a name with parentheses and spaces."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from aliceserver.debuggers.ptrace.procinfo import thread_core, thread_name, thread_name_and_core


def test_name_and_core_from_one_read_match_the_two_reads() -> None:
    pid, tid = os.getpid(), threading.get_native_id()
    comm = Path(f"/proc/{pid}/task/{tid}/comm")
    before = comm.read_text().rstrip("\n")
    try:
        comm.write_text("a) b (c)")  # the thread renames itself, as prctl(PR_SET_NAME) does
        name, core = thread_name_and_core(pid, tid)
        assert name == thread_name(pid, tid) == "a) b (c)"
        assert isinstance(core, int) and isinstance(thread_core(pid, tid), int)
    finally:
        comm.write_text(before)


def test_a_thread_gone_has_no_name_and_no_core() -> None:
    assert thread_name_and_core(os.getpid(), 0x7FFFFFF0) == ("", None)
