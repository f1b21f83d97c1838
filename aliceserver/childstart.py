"""The first thing a child of aheadchild.py does: end with its parent, run beside it.

Apart from aheadchild.py so that a child imports only this (os, signal, ctypes) before
its work: aheadchild.py's logging, threading and typing took 24 ms of a child's ~60 ms
start (searchchild.py's, whose answer a first stop may wait for).
"""

from __future__ import annotations

import ctypes
import os
import signal

_PR_SET_PDEATHSIG = 1
CPUS_VARIABLE = "ALICESERVER_AHEAD_CPUS"  # the CPUs besides the parent thread's
PARENT_VARIABLE = "ALICESERVER_AHEAD_PARENT"  # its pid: gone already, the child ends


def child_started() -> None:
    """First thing in a child's module: end with the parent, run beside it."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != int(os.environ.get(PARENT_VARIABLE, "0") or 0):
        os._exit(1)  # the parent died before the prctl
    cpus = {int(cpu) for cpu in os.environ.get(CPUS_VARIABLE, "").split(",") if cpu}
    if cpus:
        try:
            os.sched_setaffinity(0, cpus)
        except OSError:  # a container may forbid it
            pass
