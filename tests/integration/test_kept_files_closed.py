"""A session's end closes the kept files it read (compressed DWARF sections kept inflated
in the cache by an earlier session: inflatedcache.py). They were closed only when the
garbage collector found their sections, which a long-lived DAP server, idle once its
sessions end, may never do: CI's run of test_load_dap found libc's kept line programs and
strings still open after 94 sessions (3 descriptors more than at its baseline).

A real build: a program with zlib-compressed DWARF (gcc -gz); the first session keeps its
sections inflated, the second reads them from there, then closes. The garbage collector
is off, and the session is still referenced, so only `close` can close them."""

from __future__ import annotations

import gc
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from aliceserver.debuggers.ptrace.engine import PtraceDebugger
from tests.support.events import EventLog
from tests.support.session import continue_to_exit, continue_to_stop, launch

pytestmark = pytest.mark.timeout(120)

_SOURCE = """
#include <stdio.h>
static int leaf(int x) { int doubled = x * 2; return doubled + 1; }
int main(int argc, char **argv) { printf("%d\\n", leaf(argc + 2)); return 0; }
"""


def _kept_open(cache: Path) -> list[str]:
    """The files of `cache` this process holds open."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # (closed meanwhile, or listdir's own)
            continue
        if target.startswith(str(cache)):
            found.append(os.path.basename(target))
    return found


@pytest.fixture
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _session(program: Path, cache: Path) -> tuple[PtraceDebugger, list[str]]:
    """A session stopped in leaf(), its stack read, run to the end: (the session, closed;
    the cache's files it held open at the stop)."""
    debugger = PtraceDebugger(cache_dir=str(cache))
    try:
        events = EventLog(debugger)
        launch(debugger, program)
        debugger.insert_breakpoint(debugger.lookup_symbol("leaf"))
        stop = continue_to_stop(debugger, events)
        frames = debugger.stack_trace(stop.thread_id)
        assert [frame.function for frame in frames[:2]] == ["leaf", "main"], frames
        assert frames[0].source is not None and frames[0].source.line == 3, frames[0]
        held = _kept_open(cache)
        continue_to_exit(debugger, events)
    finally:
        debugger.close()
    return debugger, held


def test_a_session_closes_the_kept_files_it_read(tmp_path: Path, collector_off: None) -> None:
    source = tmp_path / "prog.c"
    source.write_text(_SOURCE)
    program = tmp_path / "prog"
    subprocess.run(["gcc", "-g", "-gz", "-O0", "-o", str(program), str(source)], check=True)
    cache = tmp_path / "cache"
    first, _ = _session(program, cache)
    assert any("-inflated_" in name for name in os.listdir(cache)), os.listdir(cache)
    second, held = _session(program, cache)
    assert any("-inflated_debug_" in name for name in held), held  # (read from the kept files)
    assert _kept_open(cache) == [], "still open after the sessions' close"
    assert first is not second  # (both still referenced: nothing was collected)
