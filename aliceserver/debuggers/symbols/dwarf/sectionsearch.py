"""Byte searches over a section too large to hold: it is read a window at a time.

A 240 MB .debug_info read whole for a search costs as much memory, and most of the time
(the copy into fresh pages); read a few MB at a time into one buffer, the search keeps
little more than that buffer, and each window is still in the CPU's cache while every
needle is looked for in it. The searches ask which units hold a needle, so after a hit the
rest of that unit is not searched.
The search itself is bytesearch.py's, which a child process runs as well (searchchild.py).
A compressed section is inflated a window at a time as well the first time it is searched
(ElfSections.window_reader), not inflated whole and kept (libc's .debug_info: 5.8 MB),
and written to the cache for later sessions, which search those bytes (inflatedcache.py).
"""

from __future__ import annotations

import logging
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence

from aliceserver.debuggers.symbols.dwarf import inflatedcache
from aliceserver.debuggers.symbols.dwarf.bytesearch import (
    WINDOW,
    FileWindows,
    Needle,
    finder,
    positions,
    searchable,
    size_of,
)
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
from aliceserver.debuggers.symbols.elfheaders import SHF_COMPRESSED
from aliceserver.errors import TargetError

log = logging.getLogger(__name__)

__all__ = ["WINDOW", "Needle", "hit_positions", "units_holding"]


def units_holding(
    sections: ElfSections, name: str, needles: Iterable[Needle],
    unit_offsets: Sequence[int] | Callable[[], Sequence[int]], window: int = WINDOW,
    witnesses: dict[Needle, list[int]] | None = None,
) -> set[int]:  # fmt: skip
    """The units (of those starting at `unit_offsets`, or that it returns when called at
    the first hit) of section `name` whose bytes hold any of `needles`; a hit before the
    first unit counts for none. `witnesses` gets, per needle, where it was found: a hit
    in each unit holding it."""
    wanted = searchable(needles)
    size = sections.size(name)
    if not wanted or size == 0:
        return set()
    listed: list[list[int]] = []

    def units() -> list[int]:
        if not listed:
            listed.append(sorted(unit_offsets() if callable(unit_offsets) else unit_offsets))
        return listed[0]

    overlap = max(size_of(needle) for needle in wanted) - 1
    found: set[int] = set()
    finders = {needle: finder(needle) for needle in wanted}
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
                    hit = finders[needle](data, at - start, end - start + size_of(needle) - 1)
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
    wanted = searchable(needles)
    size = sections.size(name)
    if not wanted or size == 0:
        return {needle: [] for needle in wanted}
    reader = _Windows(sections, name, window + max(map(size_of, wanted)) - 1)
    try:
        return positions(lambda at, count: (reader.read(at, count), 0), size, wanted, cap, window)
    finally:
        reader.close()


class _Windows:
    """Reads of one section into one reused buffer (a compressed section: by ElfSections,
    a window at a time when it is first searched)."""

    def __init__(self, sections: ElfSections, name: str, largest: int) -> None:
        self._sections = sections
        self._name = name
        header = sections.header(name)
        plain = header is not None and not header.flags & SHF_COMPRESSED
        plain = plain and header is not None and not header.name.startswith(".zdebug")
        self._size = sections.size(name)
        self._file: FileWindows | None = None
        self._kept = None if plain else inflatedcache.kept(sections, name, largest)
        if plain and header is not None:
            try:
                self._file = FileWindows(sections.path, header.offset, self._size, largest)
            except OSError:
                plain = False
        stream = None if plain or self._kept is not None else sections.window_reader(name)
        self._stream = stream and inflatedcache.keeping(sections, name, stream)

    def read(self, offset: int, size: int) -> bytes | bytearray:
        if self._stream is not None:
            return self._stream.read(offset, size)
        if self._file is None and self._kept is None:
            return self._sections.read(self._name, offset, size)
        try:
            if self._kept is not None:  # (inflated by an earlier session)
                return self._kept.read(offset, size)
            assert self._file is not None
            return self._file.bytes_at(offset, size)
        except EOFError:  # (cut short since it was opened)
            if self._kept is None:
                raise TargetError(f"{self._sections.path}: section {self._name} is truncated") from None
        # the cache's copy was: the section's own bytes then, as if none were kept
        log.info("%s: the kept inflated %s was cut short; inflating it", self._sections.path, self._name)
        self._kept.close()
        self._kept = None
        self._stream = self._sections.window_reader(self._name)
        return self.read(offset, size)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        if self._kept is not None:
            self._kept.close()
        if isinstance(self._stream, inflatedcache.KeepingInflate):
            self._stream.close()
