"""Byte searches over a section too large to hold: it is read a window at a time.

A 240 MB .debug_info read whole for a search costs as much memory, and most of the time
(the copy); read 16 MB at a time, the search keeps little more than a window. The searches
ask which units hold a needle, so after a hit the rest of that unit is not searched.
A needle of a few bytes (a 4-byte string offset, mostly NULs) is looked for by `re`, which
was measured 2-3x faster there than bytes.find (slower for longer ones).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence

from aliceserver.debuggers.symbols.dwarf.sections import ElfSections

WINDOW = 16 << 20
_SHORT = 8  # needles up to this many bytes are searched by `re`

Finder = Callable[[bytes, int, int], int]  # (data, start, end) -> where the needle is, or -1


def _finder(needle: bytes) -> Finder:
    if len(needle) > _SHORT:
        return lambda data, start, end: data.find(needle, start, end)
    pattern = re.compile(re.escape(needle))

    def search(data: bytes, start: int, end: int) -> int:
        found = pattern.search(data, start, end)
        return -1 if found is None else found.start()

    return search


def units_holding(
    sections: ElfSections, name: str, needles: Iterable[bytes], unit_offsets: Sequence[int],
    window: int = WINDOW,
) -> set[int]:  # fmt: skip
    """The units (of those starting at `unit_offsets`) of section `name` whose bytes hold
    any of `needles`; a hit before the first unit counts for none."""
    wanted = [needle for needle in needles if needle]
    ordered = sorted(unit_offsets)
    size = sections.size(name)
    if not wanted or not ordered or size == 0:
        return set()
    overlap = max(len(needle) for needle in wanted) - 1
    found: set[int] = set()
    finders = {needle: _finder(needle) for needle in wanted}
    resume = dict.fromkeys(wanted, 0)  # per needle: where its search goes on
    start = 0
    while start < size:
        end = min(size, start + window)
        data = sections.read(name, start, end - start + overlap)
        for needle in wanted:
            at = resume[needle]
            while at < end:
                hit = finders[needle](data, at - start, end - start + len(needle) - 1)
                if hit < 0:
                    at = end
                    break
                position = start + hit
                unit = bisect_right(ordered, position) - 1
                if unit >= 0:
                    found.add(ordered[unit])
                # the rest of this unit adds nothing: on at the next one
                at = ordered[unit + 1] if unit + 1 < len(ordered) else size
                at = max(at, position + 1)
            resume[needle] = at
        start = end
    return found
