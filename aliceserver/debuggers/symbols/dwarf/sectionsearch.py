"""Byte searches over a section too large to hold: it is read a window at a time.

A 240 MB .debug_info read whole for a search costs as much memory, and most of the time
(the copy into fresh pages); read a few MB at a time into one buffer, the search keeps
little more than that buffer, and each window is still in the CPU's cache while every
needle is looked for in it. The searches ask which units hold a needle, so after a hit the
rest of that unit is not searched.
A needle of a few bytes (a 4-byte string offset, mostly NULs) is looked for by `re`, which
was measured 2-3x faster there than bytes.find (slower for longer ones). A needle may be
(prefix, followers): the prefix followed by any one byte of `followers`, found in one pass
(a name ending in NUL or `<` was two needles: 33 ms more over a 240 MB .debug_info).
A compressed section is inflated a window at a time as well the first time it is searched
(ElfSections.window_reader), not inflated whole and kept (libc's .debug_info: 5.8 MB).
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence

from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
from aliceserver.debuggers.symbols.elfheaders import SHF_COMPRESSED
from aliceserver.errors import TargetError

WINDOW = 2 << 20
_SHORT = 8  # needles up to this many bytes are searched by `re`
_MISSES = 16  # a (prefix, followers) needle's prefixes without them, then `re`

Finder = Callable[[bytes | bytearray, int, int], int]  # (data, start, end) -> where the needle is, or -1
Needle = bytes | tuple[bytes, bytes]  # bytes, or (prefix, one of these bytes after it)


def _size(needle: Needle) -> int:
    return len(needle) if isinstance(needle, bytes) else len(needle[0]) + 1


def _finder(needle: Needle) -> Finder:
    if isinstance(needle, tuple):
        return _follower_finder(*needle)
    if len(needle) > _SHORT:
        return lambda data, start, end: data.find(needle, start, end)
    pattern = re.compile(re.escape(needle))

    def search(data: bytes | bytearray, start: int, end: int) -> int:
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

    def search(data: bytes | bytearray, start: int, end: int) -> int:
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


def units_holding(
    sections: ElfSections, name: str, needles: Iterable[Needle],
    unit_offsets: Sequence[int] | Callable[[], Sequence[int]], window: int = WINDOW,
    witnesses: dict[Needle, list[int]] | None = None,
) -> set[int]:  # fmt: skip
    """The units (of those starting at `unit_offsets`, or that it returns when called at
    the first hit) of section `name` whose bytes hold any of `needles`; a hit before the
    first unit counts for none. `witnesses` gets, per needle, where it was found: a hit
    in each unit holding it."""
    wanted = [n for n in needles if (n if isinstance(n, bytes) else n[0] and n[1])]
    size = sections.size(name)
    if not wanted or size == 0:
        return set()
    listed: list[list[int]] = []

    def units() -> list[int]:
        if not listed:
            listed.append(sorted(unit_offsets() if callable(unit_offsets) else unit_offsets))
        return listed[0]

    overlap = max(_size(needle) for needle in wanted) - 1
    found: set[int] = set()
    finders = {needle: _finder(needle) for needle in wanted}
    resume = dict.fromkeys(wanted, 0)  # per needle: where its search goes on
    reader = _Windows(sections, name, window + overlap)
    try:
        start = 0
        while start < size:
            end = min(size, start + window)
            data = reader.read(start, end - start + overlap)
            for needle in wanted:
                at = resume[needle]
                while at < end:
                    hit = finders[needle](data, at - start, end - start + _size(needle) - 1)
                    if hit < 0:
                        at = end
                        break
                    position = start + hit
                    if witnesses is not None:
                        witnesses.setdefault(needle, []).append(position)
                    ordered = units()
                    unit = bisect_right(ordered, position) - 1
                    if unit >= 0:
                        found.add(ordered[unit])
                    # the rest of this unit adds nothing: on at the next one
                    at = ordered[unit + 1] if unit + 1 < len(ordered) else size
                    at = max(at, position + 1)
                resume[needle] = at
            start = end
    finally:
        reader.close()
    return found


def hit_positions(sections: ElfSections, name: str, needles: Iterable[Needle], cap: int,
                  window: int = WINDOW) -> dict[Needle, list[int] | None]:  # fmt: skip
    """Where each of `needles` is in section `name`: every position, with no unit list to
    skip by; None for a needle found more than `cap` times."""
    wanted = [n for n in needles if (n if isinstance(n, bytes) else n[0] and n[1])]
    size = sections.size(name)
    found: dict[Needle, list[int] | None] = {needle: [] for needle in wanted}
    if not wanted or size == 0:
        return found
    overlap = max(_size(needle) for needle in wanted) - 1
    finders = {needle: _finder(needle) for needle in wanted}
    reader = _Windows(sections, name, window + overlap)
    try:
        for start in range(0, size, window):
            end = min(size, start + window)
            data = reader.read(start, end - start + overlap)
            for needle in wanted:
                positions = found[needle]
                at = start
                while positions is not None and at < end:
                    hit = finders[needle](data, at - start, end - start + _size(needle) - 1)
                    if hit < 0:
                        break
                    positions.append(start + hit)
                    at = start + hit + 1
                    if len(positions) > cap:
                        positions = found[needle] = None
    finally:
        reader.close()
    return found


class _Windows:
    """Reads of one section into one reused buffer (a compressed section: by ElfSections,
    a window at a time when it is first searched)."""

    def __init__(self, sections: ElfSections, name: str, largest: int) -> None:
        self._sections = sections
        self._name = name
        header = sections.header(name)
        self._plain = header is not None and not header.flags & SHF_COMPRESSED and not header.name.startswith(".zdebug")
        self._base = header.offset if header is not None else 0
        self._size = sections.size(name)
        self._buffer = bytearray(largest if self._plain else 0)
        self._fd = -1
        self._stream = None if self._plain else sections.window_reader(name)
        if self._plain:
            try:
                self._fd = os.open(sections.path, os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                self._plain = False

    def read(self, offset: int, size: int) -> bytes | bytearray:
        if self._stream is not None:
            return self._stream.read(offset, size)
        if not self._plain:
            return self._sections.read(self._name, offset, size)
        size = min(size, self._size - offset)
        view = memoryview(self._buffer)[:size]
        if os.preadv(self._fd, [view], self._base + offset) != size:
            raise TargetError(f"{self._sections.path}: section {self._name} is truncated")
        return self._buffer if size == len(self._buffer) else self._buffer[:size]

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
