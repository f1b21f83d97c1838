"""A CoreImage of a stopped process from /proc/PID: its maps, memory (/proc/PID/mem), auxv
and the `ps` facts of NT_PRPSINFO. The threads' registers come from the caller, since only
the tracer of a thread may read them."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from aliceserver.debuggers.core.records import PrPsInfo
from aliceserver.debuggers.core.writer import CoreImage, MemoryMapping, ThreadImage
from aliceserver.errors import TargetError

_PSARGS_SIZE = 80


def parse_maps(text: str) -> list[MemoryMapping]:
    """The lines of /proc/PID/maps: "start-end perms offset dev inode   path"."""
    found: list[MemoryMapping] = []
    for line in text.splitlines():
        fields = line.split(None, 5)
        if len(fields) < 5:
            continue
        start, end = (int(part, 16) for part in fields[0].split("-"))
        path = fields[5].strip() if len(fields) > 5 else ""
        found.append(MemoryMapping(start, end, fields[1], int(fields[2], 16), int(fields[4]), path))
    return found


def read_psinfo(pid: int) -> PrPsInfo:
    """NT_PRPSINFO's facts from /proc/PID/stat, status and cmdline."""
    stat = _read(pid, "stat").decode("utf-8", "surrogateescape")
    name = stat[stat.index("(") + 1 : stat.rindex(")")]
    rest = stat[stat.rindex(")") + 2 :].split()
    state, ppid, pgrp, sid = rest[0], int(rest[1]), int(rest[2]), int(rest[3])
    flags, nice = int(rest[6]), int(rest[16])
    uid = gid = 0
    for line in _read(pid, "status").decode("utf-8", "surrogateescape").splitlines():
        if line.startswith("Uid:"):
            uid = int(line.split()[1])
        elif line.startswith("Gid:"):
            gid = int(line.split()[1])
    arguments = (
        _read(pid, "cmdline")[:_PSARGS_SIZE]  # all 80 bytes, no NUL, as gdb's gcore (the kernel keeps 79)
        .replace(b"\0", b" ")
        .decode("utf-8", "surrogateescape")
    )
    return PrPsInfo(
        pid, name[:15], arguments.rstrip(), ppid, pgrp, sid, uid, gid, state, nice, flags
    )


@contextmanager
def process_image(pid: int, threads: Sequence[ThreadImage]) -> Iterator[CoreImage]:
    """The CoreImage of process `pid`, stopped (all its threads) under the caller's ptrace,
    with `threads` read by the caller; /proc/PID/mem stays open until the block ends."""
    try:
        fd = os.open(f"/proc/{pid}/mem", os.O_RDONLY | os.O_CLOEXEC)
    except OSError as error:
        raise TargetError(f"cannot read the memory of process {pid}: {error.strerror}", errno=error.errno,
                          pid=pid) from None  # fmt: skip

    def read_memory(address: int, size: int) -> bytes:
        return os.pread(fd, size, address)

    try:
        mappings = parse_maps(_read(pid, "maps").decode("utf-8", "surrogateescape"))
        yield CoreImage(read_psinfo(pid), tuple(threads), mappings, read_memory, _read(pid, "auxv"))
    finally:
        os.close(fd)


def _read(pid: int, name: str) -> bytes:
    try:
        with open(f"/proc/{pid}/{name}", "rb") as stream:
            return stream.read()
    except OSError as error:
        raise TargetError(
            f"cannot read /proc/{pid}/{name}: {error.strerror}", errno=error.errno, pid=pid
        ) from None
