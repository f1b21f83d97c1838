"""What the first stop's DAP `threads` with many threads spends on descriptors: the server's
table is grown once, at start while it has one thread (in a process of several threads the
kernel waits for an RCU grace period before each doubling, 5-15 ms:
startup.reserve_descriptors), and each thread's comm file is opened as the thread starts
(procinfo.ThreadFiles.started), not by the request."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from aliceserver.startup import reserve_descriptors
from tests.support.build import Builder
from tests.support.dap_client import DapClient
from tests.support.dap_schema import require_schema
from tests.support.dap_session import alice_session, launch_arguments, start_session

pytestmark = pytest.mark.timeout(120)

THREADS = 600  # their comm files overflow the table of 256 slots the server starts with


@pytest.fixture
def dap(tmp_path: Path) -> Iterator[DapClient]:
    require_schema()
    with alice_session(stderr=tmp_path / "adapter.log") as client:
        yield client


def _table_size(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("FDSize:"))


def test_first_stop_threads_does_not_grow_the_descriptor_table(dap: DapClient, builder: Builder) -> None:
    program = builder.build("blocked_threads")
    session = start_session(dap, program, function_breakpoints=["hit"],
                            launch=launch_arguments(program, args=[str(THREADS), "2"]))  # fmt: skip
    assert dap.adapter is not None
    before = _table_size(dap.adapter.pid)
    listed = dap.threads()
    assert len(listed) == THREADS + 1
    assert {entry["id"] for entry in listed} >= {session.thread_id}
    assert _table_size(dap.adapter.pid) == before >= 1024


def _comm_files(server: int, program: int) -> int:
    """How many of `program`'s threads' comm files `server` holds open."""
    prefix, count = f"/proc/{program}/task/", 0
    for fd in os.listdir(f"/proc/{server}/fd"):
        try:
            target = os.readlink(f"/proc/{server}/fd/{fd}")
        except OSError:
            continue
        count += target.startswith(prefix) and target.endswith("/comm")
    return count


def test_comm_files_are_opened_as_threads_start(dap: DapClient, builder: Builder) -> None:
    program = builder.build("blocked_threads")
    session = start_session(dap, program, function_breakpoints=["hit"],
                            launch=launch_arguments(program, args=["50", "2"]))  # fmt: skip
    assert dap.adapter is not None
    pid = session.thread_id  # main() calls hit(): the stop is the process's first thread's
    assert _comm_files(dap.adapter.pid, pid) == 50  # the workers', before any `threads`
    assert len(dap.threads()) == 51
    assert _comm_files(dap.adapter.pid, pid) == 51


def test_reserve_descriptors_grows_the_table_and_leaves_no_descriptor_open() -> None:
    before = set(os.listdir("/proc/self/fd"))
    reserve_descriptors(2048)
    assert _table_size(os.getpid()) >= 2048
    assert set(os.listdir("/proc/self/fd")) == before
