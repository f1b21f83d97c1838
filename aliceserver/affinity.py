"""Which CPUs the server's threads run on, and the programs it starts.

Every request crosses threads (a front end's reader, its session thread, the engine's
tracer thread). Between threads on different CPUs each handoff costs a wake-up interrupt,
about 50 us on a virtual machine, against about 5 us on the same CPU; and the GIL lets only
one of them run at a time anyway. So a server process that serves one session keeps all its
threads on one CPU (`pin_process`, before any thread starts); the engine pins its tracer
thread in any case. A program we start inherits the tracer's CPU: each of its stops is a
handoff to the tracer and back, three times cheaper there.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

# The CPUs this process was given, read before anything here pins a thread.
SERVER_CPUS: frozenset[int] = frozenset(os.sched_getaffinity(0))


def session_cpu() -> int:
    """The CPU for this thread's session: sessions spread over the CPUs by thread id."""
    cpus = sorted(SERVER_CPUS)
    return cpus[threading.get_native_id() % len(cpus)]


def pin_current_thread(cpu: int) -> bool:
    """Run this thread (and the threads it starts from now on) on `cpu` only."""
    try:
        os.sched_setaffinity(0, {cpu})
    except OSError:
        return False  # a container may forbid it; then we run unpinned
    return True


def pin_process() -> bool:
    """For a one-session server: call on the main thread before any other thread starts."""
    current = os.sched_getaffinity(0)
    if len(current) == 1:
        return True  # pinned already (by us, or by whoever started us)
    return pin_current_thread(session_cpu())


def run_unpinned(fn: Callable[[], T]) -> T:
    """`fn()` with this thread free to run on any of the server's CPUs: for long work by one
    thread alone, which gains nothing from one CPU (no handoffs) and would wait for that
    CPU on a busy machine (rbreak . on 10,000 functions: 5x its CPU time in wall time at
    load 5 on 2 CPUs, against gdb's 2.3x). Pinned as before after."""
    pinned = os.sched_getaffinity(0)
    if pinned == SERVER_CPUS:
        return fn()
    try:
        os.sched_setaffinity(0, SERVER_CPUS)
    except OSError:
        return fn()
    try:
        return fn()
    finally:
        try:
            os.sched_setaffinity(0, pinned)
        except OSError:
            pass  # as pin_current_thread: unpinned then
