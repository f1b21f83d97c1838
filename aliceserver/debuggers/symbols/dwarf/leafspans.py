"""Range-keyed answers of a pc's scope chain: the span around a pc where the innermost scope
found there holds it and none of that scope's own child scopes do. Every pc in that span
has the same chain (nested scopes nest), so a step onto a pc not seen before (each stepi
through a -O2 function: 60 us to walk its DIEs again) is answered by a bisect."""

from __future__ import annotations

from bisect import bisect_right, insort
from collections.abc import Iterable
from typing import Generic, TypeVar

T = TypeVar("T")
# per reader; cleared whole past it (a new pc walks once more). rbreak . reads each
# function's scopes at its entry, then at its breakpoint: 10,000 functions' spans kept.
_SPANS_KEPT = 32768


def leaf_span(
    address: int, ranges: Iterable[tuple[int, int]], child_ranges: Iterable[Iterable[tuple[int, int]]]
) -> tuple[int, int] | None:
    """[low, high) around `address` inside the range of the leaf scope that holds it
    (`ranges`) and outside every range of its child scopes; None where a child holds
    `address` (then the leaf was not the innermost) or no range of the leaf does."""
    low, high = next(((lo, hi) for lo, hi in ranges if lo <= address < hi), (None, None))
    if low is None or high is None:
        return None
    for each in child_ranges:
        for lo, hi in each:
            if lo >= hi:
                continue  # an empty range holds nothing
            if hi <= address:
                low = max(low, hi)
            elif lo > address:
                high = min(high, lo)
            else:
                return None
    return low, high


class LeafSpans(Generic[T]):
    """Disjoint spans per unit, each with what was found for any pc in it."""

    def __init__(self) -> None:
        self._starts: dict[int, list[int]] = {}
        self._spans: dict[int, dict[int, tuple[int, T]]] = {}
        self._count = 0

    def at(self, unit: int, address: int) -> tuple[bool, T | None]:
        """(found, its answer) for `address` of the unit at offset `unit`."""
        starts = self._starts.get(unit)
        if not starts:
            return False, None
        index = bisect_right(starts, address) - 1
        if index < 0:
            return False, None
        high, found = self._spans[unit][starts[index]]
        return (True, found) if address < high else (False, None)

    def remember(self, unit: int, span: tuple[int, int], found: T) -> None:
        low, high = span
        if self.at(unit, low)[0] or self.at(unit, high - 1)[0]:
            return  # overlaps one kept (DWARF whose scopes do not nest): keep the first
        if self._count >= _SPANS_KEPT:
            self._starts.clear()
            self._spans.clear()
            self._count = 0
        spans = self._spans.setdefault(unit, {})
        if low not in spans:
            insort(self._starts.setdefault(unit, []), low)
            self._count += 1
        spans[low] = (high, found)

