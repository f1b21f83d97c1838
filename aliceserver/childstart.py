"""The first thing a child of aheadchild.py does: end with its parent, run beside it.

Apart from aheadchild.py so that a child imports only this (os, signal, ctypes) before
its work: aheadchild.py's logging, threading and typing took 24 ms of a child's ~60 ms
start (searchchild.py's, whose answer a first stop may wait for).
"""

from __future__ import annotations

import os
import sys

_PR_SET_PDEATHSIG = 1
# Linux's numbers (x86-64, aarch64): `signal`, with its enums, takes ~5 ms to import, before
# the server's imports (programahead.py)
_SIGINT, _SIGPIPE, _SIGTERM = 2, 13, 15
CPUS_VARIABLE = "ALICESERVER_AHEAD_CPUS"  # the CPUs besides the parent thread's
PARENT_VARIABLE = "ALICESERVER_AHEAD_PARENT"  # its pid: gone already, the child ends


def child_started() -> None:
    """First thing in a child's module: end with the parent, run beside it."""
    import ctypes  # (here: a parent spawning one may not have imported it yet)
    import signal

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


def spawn(module: str, args: list[str], cpus: list[int] | None = None) -> tuple[int, int]:
    """Spawn `python -m module *args` to run on `cpus` (None: all), its standard error and
    input /dev/null: (its pid, the read end of its standard output). It dies with the
    calling thread (PR_SET_PDEATHSIG follows the thread: see aheadchild.py), and is this
    process's to reap."""
    read_end, write_end = os.pipe2(os.O_CLOEXEC)
    cpu_list = ",".join(map(str, cpus or ()))
    env = {**os.environ, CPUS_VARIABLE: cpu_list, PARENT_VARIABLE: str(os.getpid())}
    try:
        pid = os.posix_spawn(
            sys.executable, [sys.executable, "-m", module, *args], env,
            file_actions=[(os.POSIX_SPAWN_DUP2, write_end, 1),
                          (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                          (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)],
            setsigdef=(_SIGINT, _SIGTERM, _SIGPIPE),
            setsigmask={_SIGINT},  # (kept blocked by exec and Python's start)
        )  # fmt: skip
    except OSError:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    return pid, read_end
