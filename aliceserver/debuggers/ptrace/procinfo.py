"""What /proc says of a traced thread: its name and the CPU it last ran on."""

from __future__ import annotations

import os
import resource
from collections.abc import Sequence

from aliceserver.debuggers.model import ThreadInfo, ThreadState


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


def _state(pid: int, tid: int) -> bytes:
    try:
        return _read_proc(f"/proc/{pid}/task/{tid}/stat").rsplit(b")", 1)[1][1:2]
    except (OSError, IndexError):
        return b"X"  # gone


def exited_alone(pid: int) -> bool:
    """Whether the process's leader exited alone (pthread_exit): a zombie ('Z') whose other
    threads are all in a ptrace-stop ('t'), not dying with it (a kill, exit_group)."""
    if _state(pid, pid) != b"Z":
        return False
    try:
        others = [int(tid) for tid in os.listdir(f"/proc/{pid}/task") if int(tid) != pid]
    except OSError:
        return False
    return bool(others) and all(_state(pid, tid) == b"t" for tid in others)


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
        self._comm: dict[int, int] = {}  # tid -> its comm file's fd, also in _open
        self._listed: dict[int, tuple[bytes, ThreadInfo]] = {}  # the last listing's

    def listing(self, tids: Sequence[int]) -> list[ThreadInfo]:
        """Stopped threads `tids`, names alone (DAP's `threads`): one pread of each kept comm
        file, and the last listing's ThreadInfo again where the bytes read are the same, so
        an unchanged thread costs no decoding and no new object (1,000 threads: about 0.6 ms
        against 1.6 for name() and a new ThreadInfo each) and a client may keep what it made
        of one. A rename (PR_SET_NAME, a write to comm) changes the bytes: a new ThreadInfo."""
        self._open_comms(tids)
        comm, last, pread = self._comm, self._listed, os.pread
        listed: dict[int, tuple[bytes, ThreadInfo]] = {}
        result = []
        for tid in tids:
            fd = comm.get(tid)
            try:
                data = pread(fd, 64, 0) if fd is not None else self._read(tid, "comm")
            except OSError:  # gone (ESRCH), or it cannot be opened: as name() has it
                data = self._read_or_empty(tid)
            known = last.get(tid)
            if known is None or known[0] != data:
                name = data.decode(errors="replace").strip()
                known = (data, ThreadInfo(tid, name, ThreadState.STOPPED, None, None))
            listed[tid] = known
            result.append(known[1])
        if listed.keys() != last.keys():  # threads came or went: close the files of those gone
            self.keep_only(set(listed))
        self._listed = listed
        return result

    def _open_comms(self, tids: Sequence[int]) -> None:
        """Open the comm files of the threads not seen yet (the first stop's 1,000) in one
        pass, each relative to the process's task directory: a walk of two path components
        instead of five, and none of _read's work per file (the first stop's listing of 1,000
        threads: 9.3 ms of CPU -> 8.6, the opens 5.8 of it). One that cannot be opened is
        left to listing's fallback, as one past the budget."""
        comm = self._comm
        new = [tid for tid in tids if tid not in comm][: max(0, self._budget - len(self._open))]
        if not new:
            return
        try:
            task = os.open(f"/proc/{self.pid}/task", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            return
        opened, flags, open_ = self._open, os.O_RDONLY | os.O_CLOEXEC, os.open
        try:
            for tid in new:
                try:
                    fd = open_(f"{tid}/comm", flags, dir_fd=task)
                except OSError:  # gone, or no descriptor left
                    continue
                opened[(tid, "comm")] = comm[tid] = fd
        finally:
            os.close(task)

    def started(self, tid: int) -> None:
        """A new thread (PTRACE_EVENT_CLONE, on the tracer thread): its comm file opened
        now, 5-8 us of a clone's handling, rather than in the stop's `threads` after it (the
        first stop's 1,000). Read at each listing still: a rename shows at the next stop."""
        if tid not in self._comm and len(self._open) < self._budget:
            try:
                fd = os.open(f"/proc/{self.pid}/task/{tid}/comm", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:  # gone already, or no descriptor left: opened at the listing
                return
            self._open[(tid, "comm")] = self._comm[tid] = fd

    def ended(self, tid: int) -> None:
        """A thread is gone: its files closed (its tid may be reused)."""
        for name in ("comm", "stat"):
            fd = self._open.pop((tid, name), None)
            if fd is not None:
                os.close(fd)
        self._comm.pop(tid, None)

    def _read_or_empty(self, tid: int) -> bytes:
        try:
            return self._read(tid, "comm")
        except OSError:
            return b""

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
            if key[1] == "comm":
                del self._comm[key[0]]

    def close(self) -> None:
        self.keep_only(set())

    def _read(self, tid: int, name: str) -> bytes:
        fd = self._open.get((tid, name))
        if fd is not None:
            try:
                return os.pread(fd, 4096, 0)
            except OSError:  # the thread of this file ended (ESRCH): its tid may be reused
                os.close(self._open.pop((tid, name)))
                if name == "comm":
                    del self._comm[tid]
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
        if name == "comm":
            self._comm[tid] = fd
        return data


def _file_budget() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return 4096 if soft == resource.RLIM_INFINITY else max(0, soft // 4)
