"""Each function's scope tree (lexical blocks, inlined calls) kept by its ranges in each
module, once found: the inline chain at any pc in it is then a bisect and a walk down
that tree, instead of a unit lookup (aranges) and a DIE walk (23 us a lookup). A stepi's
pc is new at each stop, so answers kept by pc (bypc.py) do not serve it; its function,
found once, does. The walk is DwarfUnits._descend's: at each level the first scope (in
DIE order) holding the pc."""

from __future__ import annotations

import logging
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field

from elftools.dwarf.die import DIE

from aliceserver.debuggers.symbols.dwarf.dietree import children

log = logging.getLogger(__name__)

_MOST = 65536  # functions kept per module (then all dropped)
_WALK = 4096  # DIEs looked at in a function before it is left to the unit lookup
_SCOPES = frozenset(("DW_TAG_lexical_block", "DW_TAG_inlined_subroutine"))
# What _descend would find a function in (a nested one, a namespace's): not kept
_UNFIT = frozenset(("DW_TAG_subprogram", "DW_TAG_namespace"))

Ranges = Callable[[DIE], list[tuple[int, int]]]


class _Unfit(Exception):
    """The function's tree is not kept (too big, or holds a function of its own)."""


@dataclass(slots=True)
class _Scope:
    die: DIE
    ranges: list[tuple[int, int]]
    inner: list[_Scope] = field(default_factory=list)


class FunctionScopes:
    """Per (module path, load bias): functions' link-time [low, high) ranges, sorted,
    each with its scope tree."""

    def __init__(self) -> None:
        self._lows: dict[tuple[str, int], list[int]] = {}
        self._kept: dict[tuple[str, int], list[tuple[int, int, _Scope]]] = {}
        self._seen: set[tuple[tuple[str, int], int]] = set()  # subprograms judged (DIE offset)

    def inline_chain(self, module: tuple[str, int], link: int) -> tuple[DIE, ...] | None:
        """The inlined calls around link-time `link`, outermost first (None: its function
        not kept)."""
        lows = self._lows.get(module)
        if not lows:
            return None
        at = bisect_right(lows, link) - 1
        if at < 0 or link >= self._kept[module][at][1]:
            return None
        node, chain = self._kept[module][at][2], list[DIE]()
        while True:
            inner = next((s for s in node.inner if any(low <= link < high for low, high in s.ranges)), None)
            if inner is None:
                return tuple(chain)
            if inner.die.tag == "DW_TAG_inlined_subroutine":
                chain.append(inner.die)
            node = inner

    def learn(self, module: tuple[str, int], subprogram: DIE, ranges: Ranges) -> None:
        """Keep `subprogram`'s tree by its ranges (once; odd or big ones not at all)."""
        key = module, subprogram.offset
        if key in self._seen:
            return
        if len(self._seen) >= _MOST:
            self._seen.clear()
        self._seen.add(key)
        try:
            root = _Scope(subprogram, ranges(subprogram))
            _grow(root, ranges, [0])
        except _Unfit:
            return
        except Exception as error:  # noqa: BLE001 - odd DWARF (pyelftools' own errors): not kept
            log.debug("scopes of the function at DIE %#x not kept: %s", subprogram.offset, error)
            return
        kept, lows = self._kept.setdefault(module, []), self._lows.setdefault(module, [])
        if len(kept) >= _MOST:
            kept.clear()
            lows.clear()
        for low, high in root.ranges:  # into place: a sort per function was quadratic (rbreak .)
            if low < high:
                at = bisect_right(lows, low)
                while at > 0 and lows[at - 1] == low and kept[at - 1][1] > high:
                    at -= 1  # by (low, high), after equal ones, as the stable sort put them
                kept.insert(at, (low, high, root))
                lows.insert(at, low)


def _grow(node: _Scope, ranges: Ranges, walked: list[int]) -> None:
    """`node`'s scopes below it, in DIE order, as _descend looks at them."""
    for child in children(node.die):
        walked[0] += 1
        if walked[0] > _WALK or child.tag in _UNFIT:
            raise _Unfit
        if child.tag in _SCOPES:
            inner = _Scope(child, ranges(child))
            node.inner.append(inner)
            _grow(inner, ranges, walked)
