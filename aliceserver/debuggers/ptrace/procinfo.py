"""What /proc says of a traced thread: its name and the CPU it last ran on."""

from __future__ import annotations

import os
import resource


def _read_proc(path: str) -> bytes:
    """A small /proc file in one read (a third of what a file object costs; asked at every stop)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return os.read(fd, 4096)
    finally:
        os.close(fd)


def thread_name(pid: int, tid: int) -> str:
    try:
        return _read_proc(f"/proc/{pid}/task/{tid}/comm").decode(errors="replace").strip()
    except OSError:
        return ""


def thread_core(pid: int, tid: int) -> int | None:
    """The CPU the thread last ran on: field 39 of /proc/PID/task/TID/stat."""
    try:
        fields = _read_proc(f"/proc/{pid}/task/{tid}/stat").rsplit(b")", 1)[1].split()
        return int(fields[36])  # fields after "(comm)" start at field 3
    except (OSError, IndexError, ValueError):
        return None


def thread_name_and_core(pid: int, tid: int) -> tuple[str, int | None]:
    """thread_name and thread_core from one read of /proc/PID/task/TID/stat, whose second
    field is the name in parentheses (the comm file's text): the threads of a stop, 1,000
    of them, cost one file each."""
    try:
        return _name_and_core(_read_proc(f"/proc/{pid}/task/{tid}/stat"))
    except OSError:
        return "", None


def _name_and_core(stat: bytes) -> tuple[str, int | None]:
    start, end = stat.find(b"("), stat.rfind(b")")
    if start < 0 or end < start:
        return "", None
    name = stat[start + 1 : end].decode(errors="replace").strip()
    try:
        return name, int(stat[end + 1 :].split()[36])
    except (IndexError, ValueError):
        return name, None


class ThreadFiles:
    """The /proc files of one process's threads (comm, stat), kept open from one stop to the
    next: a pread of an open file costs a tenth of open, read and close (1,000 threads' names:
    0.7 ms against 7), and still reads what the file says now (a thread may rename itself,
    PR_SET_NAME, or be renamed through its comm file). At most `budget` files stay open
    (a quarter of the open-file limit), the others are opened at each read as before."""

    def __init__(self, pid: int, budget: int | None = None) -> None:
        self.pid = pid
        self._budget = _file_budget() if budget is None else budget
        self._open: dict[tuple[int, str], int] = {}  # (tid, "comm" | "stat") -> fd

    def name(self, tid: int) -> str:
        try:
            return self._read(tid, "comm").decode(errors="replace").strip()
        except OSError:
            return ""

    def name_and_core(self, tid: int) -> tuple[str, int | None]:
        """thread_name_and_core through the thread's kept stat file."""
        try:
            return _name_and_core(self._read(tid, "stat"))
        except OSError:
            return "", None

    def keep_only(self, tids: set[int]) -> None:
        """Close the files of threads that are gone (a new thread may reuse their tid)."""
        for key in [key for key in self._open if key[0] not in tids]:
            os.close(self._open.pop(key))

    def close(self) -> None:
        self.keep_only(set())

    def _read(self, tid: int, name: str) -> bytes:
        fd = self._open.get((tid, name))
        if fd is not None:
            try:
                return os.pread(fd, 4096, 0)
            except OSError:  # the thread of this file ended (ESRCH): its tid may be reused
                os.close(self._open.pop((tid, name)))
        path = f"/proc/{self.pid}/task/{tid}/{name}"
        if len(self._open) >= self._budget:
            return _read_proc(path)
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            data = os.pread(fd, 4096, 0)
        except OSError:
            os.close(fd)
            raise
        self._open[(tid, name)] = fd
        return data


def _file_budget() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return 4096 if soft == resource.RLIM_INFINITY else max(0, soft // 4)
