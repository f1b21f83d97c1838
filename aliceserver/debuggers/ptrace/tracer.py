"""The tracer thread's pieces: a call handed to it and waited for, and its CPU.

Linux accepts ptrace requests only from the thread that attached, so one thread issues
them all; other threads hand it Commands (engine.py's `_call`)."""

from __future__ import annotations

import logging
import os
import threading
from typing import Callable

from aliceserver import affinity

log = logging.getLogger(__name__)

# No command takes this long on the tracer thread; past it, say so instead of hanging.
COMMAND_PATIENCE = 60.0


class Command:
    """One call to run on the tracer thread. A bare lock, held until the call is done, is
    the caller's wait: every front-end request makes a few of these, and a Future costs
    three times as much."""

    __slots__ = ("fn", "done", "result", "error")

    def __init__(self, fn: Callable[[], object]) -> None:
        self.fn = fn
        self.done = threading.Lock()
        self.done.acquire()
        self.result: object = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = self.fn()
        except BaseException as error:  # handed to the caller's thread
            self.error = error
        finally:
            self.done.release()


def pin_to_one_cpu() -> None:
    """Keep the tracer thread on one CPU.

    Each stop hands control from the program to the tracer and back. When both sit on the
    same CPU that handoff is a plain context switch; across CPUs it costs wake-up IPIs and
    the kernel's wait for the stopped task to leave its CPU, three times the whole cost of
    a breakpoint hit here (measured: 13k vs 39k hits/s). A program we launch inherits the
    CPU (posix_spawn from this thread); an attached one keeps its own.
    """
    current = os.sched_getaffinity(0)
    if len(current) > 1 and not affinity.pin_current_thread(affinity.session_cpu()):
        log.debug("tracer stays unpinned")
