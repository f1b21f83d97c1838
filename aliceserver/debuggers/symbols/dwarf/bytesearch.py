"""The byte search itself: needles looked for in windows of a section, read by a callable.

Shared by the session's searches (sectionsearch.py, over ElfSections) and the child process
that searches a program's .debug_info beside the session (searchchild.py), which must start
fast: this module imports nothing of the engine, only `os` and `re`.
A needle of a few bytes (a 4-byte string offset, mostly NULs) is looked for by `re`, which
was measured 2-3x faster there than bytes.find (slower for longer ones). A needle may be
(prefix, followers): the prefix followed by any one byte of `followers`, found in one pass
(a name ending in NUL or `<` was two needles: 33 ms more over a 240 MB .debug_info).
"""

from __future__ import annotations

import mmap
import os
import re
from collections.abc import Callable, Iterable

WINDOW = 2 << 20
_SHORT = 8  # needles up to this many bytes are searched by `re`
_MISSES = 16  # a (prefix, followers) needle's prefixes without them, then `re`

Data = bytes | bytearray | mmap.mmap
Finder = Callable[[Data, int, int], int]  # (data, start, end) -> where the needle is, or -1
Needle = bytes | tuple[bytes, bytes]  # bytes, or (prefix, one of these bytes after it)
# (offset, size) -> bytes holding that many of the section's from offset on, and where in them
Read = Callable[[int, int], tuple[Data, int]]


def size_of(needle: Needle) -> int:
    return len(needle) if isinstance(needle, bytes) else len(needle[0]) + 1


def searchable(needles: Iterable[Needle]) -> list[Needle]:
    """`needles` without the empty ones (nothing to find)."""
    return [n for n in needles if (n if isinstance(n, bytes) else n[0] and n[1])]


def finder(needle: Needle) -> Finder:
    if isinstance(needle, tuple):
        return _follower_finder(*needle)
    if len(needle) > _SHORT:
        return lambda data, start, end: data.find(needle, start, end)
    pattern = re.compile(re.escape(needle))

    def search(data: Data, start: int, end: int) -> int:
        found = pattern.search(data, start, end)
        return -1 if found is None else found.start()

    return search


def _follower_finder(prefix: bytes, followers: bytes) -> Finder:
    """Where `prefix` is followed by one of `followers`: by bytes.find, as fast as one
    long needle, while the prefix seldom comes without them; else (a short or common
    prefix) by `re` from there on."""
    allowed = frozenset(followers)
    width = len(prefix)
    pattern = re.compile(re.escape(prefix) + b"[" + re.escape(followers) + b"]")

    def search(data: Data, start: int, end: int) -> int:
        if width < _SHORT:
            found = pattern.search(data, start, end)
            return -1 if found is None else found.start()
        at = data.find(prefix, start, end - 1)
        for _miss in range(_MISSES):
            if at < 0 or (at + width < len(data) and data[at + width] in allowed):
                return at
            at = data.find(prefix, at + 1, end - 1)
        found = pattern.search(data, at, end) if at >= 0 else None
        return -1 if found is None else found.start()

    return search


def positions(read: Read, size: int, needles: Iterable[Needle], cap: int,
              window: int = WINDOW) -> dict[Needle, list[int] | None]:  # fmt: skip
    """Where each of `needles` is in the `size` bytes `read` reads: every position; None
    for a needle found more than `cap` times."""
    wanted = searchable(needles)
    found: dict[Needle, list[int] | None] = {needle: [] for needle in wanted}
    if not wanted or size == 0:
        return found
    overlap = max(size_of(needle) for needle in wanted) - 1
    finders = {needle: finder(needle) for needle in wanted}
    for start in range(0, size, window):
        end = min(size, start + window)
        data, base = read(start, end - start + overlap)
        for needle in wanted:
            hits = found[needle]
            at = start
            limit = base + min(end + size_of(needle) - 1, size) - start  # (not past the section)
            while hits is not None and at < end:
                hit = finders[needle](data, base + at - start, limit)
                if hit < 0:
                    break
                hits.append(start + hit - base)
                at = start + hit - base + 1
                if len(hits) > cap:
                    hits = found[needle] = None
    return found


class FileMap:
    """`size` bytes at file offset `base` (a section stored plain), mapped: searched in
    place, where windows read by pread were copied first (~50 ms of a search of 236 MB in a
    child, 190-240 ms). Read in order: the pages before a read are let go (else the
    process's resident size grew by the whole section). For a child only: a file cut short
    under the map ends it (SIGBUS)."""

    def __init__(self, path: str, base: int, size: int) -> None:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            if os.fstat(fd).st_size < base + size:
                raise EOFError("truncated")
            self._map = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
        finally:
            os.close(fd)
        self._base = base
        self._map.madvise(mmap.MADV_SEQUENTIAL)
        self._kept = 0  # the pages from there on are still mapped

    def read(self, offset: int, size: int) -> tuple[Data, int]:
        start = (self._base + offset) & -mmap.PAGESIZE
        if start > self._kept:
            self._map.madvise(mmap.MADV_DONTNEED, self._kept, start - self._kept)
            self._kept = start
        return self._map, self._base + offset

    def close(self) -> None:
        self._map.close()


class FileWindows:
    """Reads of `size` bytes at file offset `base` (a section stored plain) into one reused
    buffer of `largest` bytes; EOFError where the file ends before."""

    def __init__(self, path: str, base: int, size: int, largest: int) -> None:
        self._base = base
        self._size = size
        self._buffer = bytearray(largest)
        self._fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)

    def read(self, offset: int, size: int) -> tuple[Data, int]:
        return self.bytes_at(offset, size), 0

    def bytes_at(self, offset: int, size: int) -> bytes | bytearray:
        size = min(size, self._size - offset)
        view = memoryview(self._buffer)[:size]
        if os.preadv(self._fd, [view], self._base + offset) != size:
            raise EOFError("truncated")
        return self._buffer if size == len(self._buffer) else self._buffer[:size]

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
