"""Work done ahead in a child Python process, on a CPU the session is not using.

The session's threads share one GIL and one CPU (affinity.py), so a thread helps only
where its work releases the GIL (zlib: sectionprefetch.py). Byte searches and index builds
do not; a child process runs them beside the session. It is started by posix_spawn (fork
and exec, no copy of this process's pages to fault in: a bare fork's copy-on-write faults
cost this process more than the child saved) as `python -m MODULE ARGS`, so it imports
only what that module needs; its standard output is the answer (its errors are not the
user's: its standard error is /dev/null, its failure logged).

The child (`child_started` first thing) leaves the CPU its parent's thread is pinned to,
and dies with its parent (PR_SET_PDEATHSIG, which follows the spawning *thread*: spawn from
a thread that lives as long as the work is wanted). Whoever spawns one reaps it: `answer`
waits for it, `close` kills it first.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import sys
import threading
from collections.abc import Sequence

from aliceserver.affinity import SERVER_CPUS

log = logging.getLogger(__name__)

_PR_SET_PDEATHSIG = 1
_CPUS_VARIABLE = "ALICESERVER_AHEAD_CPUS"  # the parent's CPUs, for the child to run on
_PARENT_VARIABLE = "ALICESERVER_AHEAD_PARENT"  # its pid: gone already, the child ends


class AheadChild:
    """One child process running `python -m module *args`, spawned and waited for by a
    thread of its own: the tracer thread waits for any child of its own (waitpid(-1,
    __WNOTHREAD)), which must never be this one, and the parent-death signal follows the
    spawning thread, which lives here as long as the child."""

    def __init__(self, module: str, args: Sequence[str]) -> None:
        self.pid = 0
        self._answer: bytes | None = None
        self._spawned = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(module, list(args)),
                                        daemon=True, name="aliceserver-ahead")  # fmt: skip
        self._thread.start()

    @property
    def started(self) -> bool:
        """Whether the child runs or ran (waiting until it was spawned or failed to be)."""
        self._spawned.wait()
        return self.pid != 0

    def answer(self) -> bytes | None:
        """The child's standard output once it ended well (waiting for it), else None
        (it failed, was killed, or never started)."""
        self._thread.join()
        return self._answer

    def close(self) -> None:
        """Kill the child if it still runs, and reap it."""
        if self.started and self._thread.is_alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        self._thread.join()

    def _run(self, module: str, args: list[str]) -> None:
        read_end, write_end = os.pipe2(os.O_CLOEXEC)
        others = sorted(SERVER_CPUS - os.sched_getaffinity(0)) or sorted(SERVER_CPUS)
        env = {
            **os.environ,
            _CPUS_VARIABLE: ",".join(map(str, others)),
            _PARENT_VARIABLE: str(os.getpid()),
        }
        try:
            self.pid = os.posix_spawn(
                sys.executable, [sys.executable, "-m", module, *args], env,
                file_actions=[(os.POSIX_SPAWN_DUP2, write_end, 1),
                              (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                              (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)],
                setsigdef=(signal.SIGINT, signal.SIGTERM, signal.SIGPIPE),
            )  # fmt: skip
        except OSError as error:
            log.debug("no child for %s: %s", module, error)
            os.close(read_end)
            return
        finally:
            os.close(write_end)
            self._spawned.set()
        chunks = []
        try:
            while chunk := os.read(read_end, 1 << 16):  # (releases the GIL)
                chunks.append(chunk)
        except OSError as error:
            log.debug("child %d: %s", self.pid, error)
        finally:
            os.close(read_end)
        _pid, status = os.waitpid(self.pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if code == 0:
            self._answer = b"".join(chunks)
        else:
            log.debug("child %d (%s) ended with %d", self.pid, module, code)


def child_started() -> None:
    """First thing in a child's module: end with the parent, run beside it."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != int(os.environ.get(_PARENT_VARIABLE, "0") or 0):
        os._exit(1)  # the parent died before the prctl
    cpus = {int(cpu) for cpu in os.environ.get(_CPUS_VARIABLE, "").split(",") if cpu}
    with contextlib.suppress(OSError):  # a container may forbid it
        if cpus:
            os.sched_setaffinity(0, cpus)
