"""What a server process holds, read from /proc: descriptors, memory, zombies, tracees.

Used after fault and load tests: once a session has ended, the server must hold no more
descriptors than before it, have no zombie children and trace nothing.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from tests.support.procs import all_pids, read_status


def fd_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def fd_targets(pid: int) -> list[str]:
    """Where each open descriptor points (for a readable leak report)."""
    found = []
    for entry in os.listdir(f"/proc/{pid}/fd"):
        try:
            found.append(f"{entry} -> {os.readlink(f'/proc/{pid}/fd/{entry}')}")
        except OSError:
            continue
    return sorted(found, key=lambda text: int(text.split()[0]))


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def thread_ids(pid: int) -> set[int]:
    try:
        return {int(t) for t in os.listdir(f"/proc/{pid}/task")}
    except OSError:
        return set()


@dataclass(frozen=True)
class Audit:
    fds: int
    zombies: list[int]  # children of the server that are zombies
    children: list[int]  # live children of the server
    traced: list[int]  # processes traced by one of the server's threads

    def problems(self, fd_baseline: int | None = None) -> list[str]:
        found = []
        if self.zombies:
            found.append(f"zombie children: {self.zombies}")
        if self.traced:
            found.append(f"still traced: {self.traced}")
        if self.children:
            found.append(f"children left: {self.children}")
        if fd_baseline is not None and self.fds > fd_baseline:
            found.append(f"{self.fds} descriptors open, {fd_baseline} before")
        return found


def audit(pid: int) -> Audit:
    tids = thread_ids(pid)
    zombies: list[int] = []
    children: list[int] = []
    traced: list[int] = []
    for other in all_pids():
        if other == pid:
            continue
        status = read_status(other)
        if status is None:
            continue
        if status.ppid in tids:
            (zombies if status.state == "Z" else children).append(other)
        if status.tracer_pid in tids:
            traced.append(other)
    return Audit(fd_count(pid), zombies, children, traced)


def wait_clean(pid: int, fd_baseline: int | None, patience: float = 10.0) -> list[str]:
    """Problems that persist for `patience` seconds (cleanup runs in other threads)."""
    deadline = time.monotonic() + patience
    while True:
        problems = audit(pid).problems(fd_baseline)
        if not problems or time.monotonic() >= deadline:
            if problems and fd_baseline is not None:
                problems.append("descriptors:\n  " + "\n  ".join(fd_targets(pid)))
            return problems
        time.sleep(0.05)


def gone(pid: int, patience: float = 10.0) -> bool:
    """Whether `pid` disappears (or is only a zombie) within `patience` seconds."""
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        status = read_status(pid)
        if status is None or status.state == "Z":
            return True
        time.sleep(0.05)
    return False


def running_untraced(pid: int) -> bool:
    """Alive, traced by nobody, not stopped."""
    status = read_status(pid)
    return status is not None and status.tracer_pid == 0 and status.state not in ("Z", "t", "T", "X")
