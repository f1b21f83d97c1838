"""Changing breakpoints while the program runs, as DAP clients do (setBreakpoints while running).

Four threads hit a counting breakpoint (its condition is false) as fast as they can while
another thread removes and re-inserts it. A hit whose SIGTRAP is still queued when its trap
is removed must not reach the program as a real SIGTRAP (it would kill it).
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from aliceserver.debuggers.events import Exited, Stopped
from aliceserver.debuggers.model import LaunchConfig
from aliceserver.debuggers.ptrace.engine import PtraceDebugger

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is needed to build the program"),
]

SOURCE = r"""
#include <pthread.h>
#include <time.h>
volatile long total;
__attribute__((noinline)) void work(long i) { __atomic_add_fetch(&total, i & 1, __ATOMIC_RELAXED); }
static void *spin(void *arg) {
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        for (int i = 0; i < 1000; i++) work(i);
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while (now.tv_sec - start.tv_sec < 2);
    return 0;
}
int main(void) {
    pthread_t threads[4];
    for (int i = 0; i < 4; i++) pthread_create(&threads[i], 0, spin, 0);
    for (int i = 0; i < 4; i++) pthread_join(threads[i], 0);
    return 7;
}
"""


def test_breakpoints_removed_and_inserted_while_running(tmp_path: Path) -> None:
    source = tmp_path / "spin.c"
    source.write_text(SOURCE)
    program = tmp_path / "spin"
    subprocess.run(["gcc", "-O0", "-pthread", "-o", str(program), str(source)], check=True)
    debugger = PtraceDebugger()
    events = debugger.subscribe()
    try:
        debugger.launch(LaunchConfig(str(program)))
        address = debugger.lookup_symbol("work")
        bp = debugger.insert_breakpoint(address, condition=lambda tid: False)
        debugger.resume()
        counted = 0
        for _ in range(20):
            time.sleep(0.03)
            assert debugger.is_running()
            counted += next(b.hit_count for b in debugger.breakpoints() if b.id == bp.id)
            debugger.remove_breakpoint(bp.id)
            time.sleep(0.01)
            bp = debugger.insert_breakpoint(address, condition=lambda tid: False)
        assert counted > 0, "the counting breakpoint was never hit"
        while True:
            event = events.get(timeout=20)
            assert not isinstance(event, Stopped), f"unexpected stop: {event}"
            if isinstance(event, Exited):
                break
        assert (event.code, event.signal) == (7, None)
    finally:
        debugger.close()
