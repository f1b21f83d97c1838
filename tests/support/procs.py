"""Process bookkeeping through /proc: our children, zombies, tracees, tracer checks, listening sockets."""

from __future__ import annotations

import os
import select
import signal
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ProcStatus:
    pid: int
    name: str
    state: str  # first letter of the State: line (R, S, t, T, Z, ...)
    ppid: int
    tracer_pid: int


def read_status(pid: int) -> ProcStatus | None:
    """Parsed /proc/PID/status, or None when the process is gone."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return ProcStatus(
        pid=pid,
        name=fields.get("Name", ""),
        state=fields.get("State", "?")[:1],
        ppid=int(fields.get("PPid", "0")),
        tracer_pid=int(fields.get("TracerPid", "0")),
    )


def all_pids() -> list[int]:
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]


def own_tids() -> set[int]:
    """Thread ids of this process (a tracer thread's tid is what TracerPid shows)."""
    return {int(entry) for entry in os.listdir("/proc/self/task") if entry.isdigit()}


def leftovers() -> tuple[list[ProcStatus], list[ProcStatus]]:
    """(children of this process still present, processes traced by one of our threads)."""
    me = os.getpid()
    tids = own_tids()
    children: list[ProcStatus] = []
    traced: list[ProcStatus] = []
    for pid in all_pids():
        if pid == me:
            continue
        status = read_status(pid)
        if status is None:
            continue
        if status.ppid in tids:
            children.append(status)
        if status.tracer_pid in tids:
            traced.append(status)
    return children, traced


def wait_no_leftovers(grace: float = 3.0) -> tuple[list[ProcStatus], list[ProcStatus]]:
    """Leftovers that persist for `grace` seconds (exits and reaping take a moment)."""
    deadline = time.monotonic() + grace
    while True:
        children, traced = leftovers()
        if (not children and not traced) or time.monotonic() >= deadline:
            return children, traced
        time.sleep(0.05)


def kill_and_reap(statuses: list[ProcStatus]) -> None:
    """SIGKILL the given processes and reap those that are our children."""
    for status in statuses:
        try:
            os.kill(status.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 3.0
    pending = {s.pid for s in statuses}
    while pending and time.monotonic() < deadline:
        for pid in list(pending):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG | getattr(os, "__WALL", 0x40000000))
            except ChildProcessError:
                pending.discard(pid)  # not ours to reap, or already reaped
                continue
            if done == pid:
                pending.discard(pid)
        time.sleep(0.02)


def is_traced(pid: int) -> bool:
    status = read_status(pid)
    return status is not None and status.tracer_pid != 0


def proc_state(pid: int) -> str:
    """One-letter state from /proc/PID/stat ('t' = tracing stop), '' when gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return ""
    return text[text.rindex(")") + 2]


def listening_addresses(port: int) -> list[str]:
    """Local addresses (hex, as /proc writes them) of TCP sockets listening on `port`, IPv4
    and IPv6: read from /proc, without a probing connection."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            address, hex_port = fields[1].split(":")
            if int(hex_port, 16) == port and fields[3] == "0A":  # TCP_LISTEN
                found.append(address)
    return found


def read_available(fd: int, timeout: float) -> bytes:
    """Whatever `fd` yields within `timeout` seconds (b"" on timeout or end of file)."""
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
        # Got something: take what is already queued, without waiting for more.
        ready, _, _ = select.select([fd], [], [], 0.05)
        if not ready:
            break
    return b"".join(chunks)


def read_until_seen(fd: int, wanted: bytes, timeout: float) -> bytes:
    """What `fd` yields until `wanted` is among it, end of file, or `timeout` seconds.
    A pty's master gets the slave's writes from a kernel work queue, not within the write:
    what a program wrote before it exited may come after the terminal's echo of input."""
    data = b""
    deadline = time.monotonic() + timeout
    while wanted not in data and (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        chunk = os.read(fd, 65536) if ready else b""
        if not chunk:
            break
        data += chunk
    return data
