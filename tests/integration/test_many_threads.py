"""100 threads blocked in the same call, under MI against gdb 13: -thread-info lists as
many threads as gdb, and each thread's frames (shared among threads at the same places
in the code, but for their levels and frame addresses) are gdb's, at two stops. And each
parked thread's stack is read once for its frame 0 and arguments (twinthreads.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.mi_client import MiClient, mi_stopped_at
from tests.support.mi_grammar import List, Tuple

pytestmark = [needs_gdb, pytest.mark.timeout(300)]
THREADS = (1, 2, 51, 101)  # gdb's numbers: main, the first, a middle and the last worker


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("blocked_threads")


def _frames(mi: MiClient, thread: int) -> list[tuple[str, ...]]:
    """The thread's frames from its function in the program on (gdb shows a tail call's
    frame inside libc's futex wait that we do not yet): address, function, line, level."""
    stack = mi.ok(f"-stack-list-frames --thread {thread}").results["stack"]
    assert isinstance(stack, List)
    keys = ("addr", "func", "line", "level")
    frames = [tuple(str(f.get(k)) for k in keys) for f in stack.values if isinstance(f, Tuple)]
    first = next(n for n, frame in enumerate(frames) if frame[1] in ("hit", "worker"))
    return frames[first:]


def _frame_at(mi: MiClient, thread: int, level: str) -> str:
    """`info frame`'s first line without the level: the frame's address (its CFA)."""
    mi.ok(f"-thread-select {thread}")
    mi.ok(f"-stack-select-frame {level}")
    _, lines = mi.command('-interpreter-exec console "info frame"')
    return next(line for line in lines if line.startswith('~"Stack level')).partition(",")[2]


def _session(prog: Path, gdb: bool) -> list[object]:
    seen: list[object] = []
    with mi_stopped_at(prog, "hit", prog.parent, gdb=gdb) as mi:
        for stop in range(2):
            if stop:
                mi.ok("-exec-continue")
                mi.stopped()
            threads = mi.ok("-thread-info").results["threads"]
            assert isinstance(threads, List)
            seen.append(len(threads.values))
            for thread in THREADS:
                frames = _frames(mi, thread)
                seen.append([frame[:3] for frame in frames])
                if thread != 1:  # main's stack lies where the environment puts it, not so theirs
                    seen.append(_frame_at(mi, thread, frames[0][3]))
    return seen


def test_threads_and_their_frames_are_gdbs(prog: Path) -> None:
    ours, theirs = _session(prog, gdb=False), _session(prog, gdb=True)
    assert theirs[0] == 101
    assert ours == theirs


# Loaded first by the server's interpreter: counts the reads of the program's memory made
# during each -thread-info, written to READS_LOG when it ends.
_SITECUSTOMIZE = """
import os
if os.environ.get("READS_LOG"):
    from aliceserver.adapters.mi import commands_stack
    from aliceserver.debuggers.ptrace import binding
    count = [0]
    _read = binding.ProcessMemory.read
    def read(self, address, size):
        count[0] += 1
        return _read(self, address, size)
    binding.ProcessMemory.read = read
    _thread_info = commands_stack._thread_info
    def thread_info(ctx, args):
        count[0] = 0
        try:
            return _thread_info(ctx, args)
        finally:
            with open(os.environ["READS_LOG"], "a") as log:
                log.write(f"{count[0]}\\n")
    commands_stack._thread_info = thread_info
"""


def test_each_parked_thread_reads_its_stack_once(prog: Path, tmp_path: Path) -> None:
    """Its unwinding's block holds the words the share check compares: read once, at
    each of two stops (twice a thread before: 2,000 reads of 1,000 threads' first stop)."""
    (tmp_path / "sitecustomize.py").write_text(_SITECUSTOMIZE)
    log = tmp_path / "reads.log"
    env = dict(os.environ, PYTHONPATH=str(tmp_path), READS_LOG=str(log))
    mi = MiClient(["-i=mi", "-q", "-nx", str(prog)], cwd=prog.parent, env=env)
    try:
        mi.prompt()
        mi.ok("-break-insert hit")
        mi.ok("-exec-run")
        mi.stopped()
        threads = mi.ok("-thread-info").results["threads"]
        assert isinstance(threads, List) and len(threads.values) == 101
        mi.ok("-exec-continue")
        mi.stopped()
        mi.ok("-thread-info")
    finally:
        mi.close()
    first, later = (int(line) for line in log.read_text().split())
    assert 100 <= first < 120, (first, later)
    assert later < 120, later
