"""Shown frame levels (inlined calls counted, as gdb numbers frames) to physical frames.

Frame N of a backtrace asks where its physical frame is; counting from the innermost each
time made a 3,000-frame backtrace ask 4.5 million inline chains (27 s of its 30). The
levels where each physical frame's innermost shown frame starts are kept per unwinding
(a list that only grows deeper) until the program moves."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

from aliceserver.debuggers.symbols.dwarf.unwind import UnwoundFrame
from aliceserver.errors import ProtocolError

# A shorter unwinding is counted again each time (a breakpoint condition's one-frame list,
# made anew at each hit, is not kept)
_KEPT_FROM = 16


class ShownLevels:
    def __init__(self, depth: Callable[[UnwoundFrame], int]) -> None:
        self._depth = depth  # the inlined calls a physical frame shows besides its own
        # id(frames) -> (frames, the shown level of each one's innermost frame so far)
        self._starts: dict[int, tuple[list[UnwoundFrame], list[int]]] = {}

    def forget(self) -> None:
        self._starts.clear()

    def physical_level(self, frames: list[UnwoundFrame], level: int) -> tuple[int, int]:
        """Shown frame `level` as (physical frame index, inlined calls out from its innermost)."""
        known = self._starts.get(id(frames))
        if known is None or known[0] is not frames:
            known = (frames, [])
            if len(frames) > _KEPT_FROM:
                self._starts[id(frames)] = known
        starts = known[1]
        while len(starts) < len(frames) and (not starts or starts[-1] <= level):
            starts.append(starts[-1] + self._depth(frames[len(starts) - 1]) + 1 if starts else 0)
        index = bisect_right(starts, level) - 1
        if index >= 0:
            out = level - starts[index]
            if out == 0 or index + 1 < len(starts) or out <= self._depth(frames[index]):
                return index, out
        raise ProtocolError(f"no frame at level {level}")
