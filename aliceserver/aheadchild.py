"""Work done ahead in a child Python process, on a CPU the session is not using.

The session's threads share one GIL and one CPU (affinity.py), so a thread helps only
where its work releases the GIL (zlib: sectionprefetch.py). Byte searches and index builds
do not; a child process runs them beside the session. It is started by posix_spawn (fork
and exec, no copy of this process's pages to fault in: a bare fork's copy-on-write faults
cost this process more than the child saved) as `python -m MODULE ARGS`, so it imports
only what that module needs; its standard output is the answer (its errors are not the
user's: its standard error is /dev/null, its failure logged).

The child (`child_started` first thing, from childstart.py: a child imports nothing more)
dies with its parent (PR_SET_PDEATHSIG, which follows the spawning *thread*: spawn from a
thread that lives as long as the work is wanted), not with a ^C typed at the server's
terminal, which signals the terminal's whole foreground process group: it starts with SIGINT
blocked, so that a ^C reaches the server alone (a killed child's work was lost: the session
redid it). It stays in its parent's group, which a SIGTERM or SIGHUP sent to the group still
ends at once (in a group of its own, the parent's SIGTERM handler waited for it). It starts
on the CPUs other than the one its parent's thread is pinned to (the spawning thread leaves
that CPU first: the child's start, its interpreter and imports, does not take turns with the
parent's thread), until `widen`ed to any of the server's once the parent waits for it: kept
on the other CPU, it shared that one with another program's load while the parent's CPU
idled.
Whoever spawns one reaps it: `answer` waits for it, `close` kills it first; a child still
running when the server ends (startup.leave runs atexit's hooks before os._exit) is killed
and reaped here, not left to the parent-death signal and init.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import signal
import threading
import weakref
from collections.abc import Callable, Sequence

from aliceserver.affinity import SERVER_CPUS
from aliceserver.childstart import child_started, spawn

__all__ = ["AheadChild", "child_started", "close_all"]

log = logging.getLogger(__name__)

_living: weakref.WeakSet[AheadChild] = weakref.WeakSet()  # spawned, not closed yet


class AheadChild:
    """One child process running `python -m module *args`, spawned and waited for by a
    thread of its own: the tracer thread waits for any child of its own (waitpid(-1,
    __WNOTHREAD)), which must never be this one, and the parent-death signal follows the
    spawning thread, which lives here as long as the child."""

    def __init__(self, module: str, args: Sequence[str],
                 heard: Callable[[bytes], None] | None = None,
                 spawned: tuple[int, int] | None = None) -> None:  # fmt: skip
        """`heard`: given each part of the child's output as it comes (on this object's
        thread), for an answer given a piece at a time. `spawned`: (pid, read end of its
        output) of a child spawned already (`spawn`, by a thread that lives as long as it),
        to be read and reaped here (childstart.spawn)."""
        self.pid = 0
        self._heard = heard
        self._answer: bytes | None = None
        self._spawned = threading.Event()
        self._lock = threading.Lock()  # held while the child's pid is used or reaped
        self._reaped = False
        _living.add(self)
        self._thread = threading.Thread(target=self._run, args=(module, list(args), spawned),
                                        daemon=True, name="aliceserver-ahead")  # fmt: skip
        self._thread.start()

    @property
    def started(self) -> bool:
        """Whether the child runs or ran (waiting until it was spawned or failed to be)."""
        self._spawned.wait()
        return self.pid != 0

    def answer(self, timeout: float | None = None) -> bytes | None:
        """The child's standard output once it ended well (waiting for it, `timeout`
        seconds at most), else None (it failed, was killed, never started, or runs still)."""
        self._thread.join(timeout)
        return self._answer

    def widen(self) -> None:
        """Let the child run on any of the server's CPUs (its parent's thread waits for it
        now: its CPU is free)."""
        if self.started:
            with self._lock, contextlib.suppress(OSError):
                if not self._reaped:
                    os.sched_setaffinity(self.pid, SERVER_CPUS)

    def close(self) -> None:
        """Kill the child if it still runs, and reap it."""
        if self.started:
            with self._lock, contextlib.suppress(ProcessLookupError):
                if not self._reaped:
                    os.kill(self.pid, signal.SIGKILL)
        self._thread.join()
        _living.discard(self)

    def _run(self, module: str, args: list[str], spawned: tuple[int, int] | None) -> None:
        if spawned is None:
            others = sorted(SERVER_CPUS - os.sched_getaffinity(0)) or sorted(SERVER_CPUS)
            with contextlib.suppress(OSError):  # the child starts there, not beside our thread
                os.sched_setaffinity(0, others)
            try:
                spawned = spawn(module, args, others)
            except OSError as error:
                log.debug("no child for %s: %s", module, error)
                self._spawned.set()
                return
        self.pid, read_end = spawned
        self._spawned.set()
        chunks = []
        try:
            while chunk := os.read(read_end, 1 << 16):  # (releases the GIL)
                chunks.append(chunk)
                if self._heard is not None:
                    self._heard(chunk)
        except OSError as error:
            log.debug("child %d: %s", self.pid, error)
        finally:
            os.close(read_end)
        os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOWAIT)  # (its pid still its own)
        with self._lock:
            _pid, status = os.waitpid(self.pid, 0)
            self._reaped = True
        code = os.waitstatus_to_exitcode(status)
        if code == 0:
            self._answer = b"".join(chunks)
        else:
            log.debug("child %d (%s) ended with %d", self.pid, module, code)


@atexit.register
def close_all() -> None:
    """Kill and reap every child still running (the server ends: whoever waits for one
    then goes on without its answer)."""
    for child in list(_living):
        child.close()
