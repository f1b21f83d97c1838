"""Which units of .debug_info hold a needle: the byte search's answers, kept per section,
and searched ahead by the prefetch thread.

`break NAME` asks which units may name NAME twice for a library whose symbol table lacks
it (its out-of-line definitions, then its inlined copies: outofline.py, inlines.py), and
a first session's libraries are searched in the prefetch thread while the session builds
the program's index (sectionprefetch.py). Their sections used to be inflated whole there
and kept for the reads to come (libc's .debug_info, 5.8 MB, most of a first session's
peak memory): now the thread searches each section once, a window at a time, for the
names the session asked for, and keeps where the needles are. An answer kept holds, per
needle, a position in each unit holding it, found with the unit list given (or every
position, found without one: good for any list).
"""

from __future__ import annotations

import logging
import threading
import weakref
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
from aliceserver.debuggers.symbols.dwarf.sectionsearch import Needle, hit_positions, units_holding
from aliceserver.errors import AliceError

log = logging.getLogger(__name__)

_SECTION = ".debug_info"
_CAP = 4096  # positions of one needle a search ahead keeps; more: the session searches
_KEPT = 512  # answers kept per section (rbreak asks thousands of names once each)
_WINDOW = 64 << 10  # bytes inflated at a time ahead


@dataclass(slots=True)
class _Answer:
    done: threading.Event = field(default_factory=threading.Event)
    units: tuple[int, ...] | None = None  # the unit list `positions` were found with; None: any
    positions: list[int] | None = None  # None: not known (searched by whoever asks)


_answers: weakref.WeakKeyDictionary[ElfSections, dict[Needle, _Answer]] = (
    weakref.WeakKeyDictionary()
)
_lock = threading.Lock()


def _kept(sections: ElfSections) -> dict[Needle, _Answer]:
    found = _answers.get(sections)
    if found is None:
        found = _answers[sections] = {}
    return found


def plan(sections: ElfSections, needles: Iterable[Needle]) -> list[Needle]:
    """Mark `needles` as being searched ahead in `sections` (an asker waits for them);
    those not asked or planned before, which the caller must `search_ahead`."""
    with _lock:
        kept = _kept(sections)
        planned = [needle for needle in dict.fromkeys(needles) if needle not in kept]
        for needle in planned:
            kept[needle] = _Answer()
        return planned


def cap() -> int:
    """How many positions of one needle a search ahead keeps (more: the session searches)."""
    return _CAP


def search_ahead(sections: ElfSections, needles: Sequence[Needle]) -> None:
    """Search `needles` (planned) in one pass; whatever happens, their askers are let go."""
    found: dict[Needle, list[int] | None] = {}
    try:
        if needles:
            found = hit_positions(sections, _SECTION, needles, _CAP, _WINDOW)
    except (AliceError, OSError, ValueError) as error:
        log.debug("%s not searched ahead: %s", sections.path, error)
    finally:
        answered(sections, needles, found)


def answered(sections: ElfSections, needles: Sequence[Needle],
             found: dict[Needle, list[int] | None]) -> None:  # fmt: skip
    """Let the askers of `needles` (planned) go with what a search ahead `found`: every
    position (hit_positions'); those it has none for (None) search themselves."""
    with _lock:
        kept = _kept(sections)
        for needle in needles:
            answer = kept.get(needle)
            if answer is not None and not answer.done.is_set():
                answer.positions = found.get(needle)
                answer.done.set()


def holding(sections: ElfSections, needles: Sequence[Needle],
            unit_offsets: Sequence[int] | Callable[[], Sequence[int]]) -> set[int]:  # fmt: skip
    """units_holding(sections, ".debug_info", needles, unit_offsets), from the answers
    kept where they hold, waiting for those being searched ahead."""
    listed: list[list[int]] = []

    def units() -> list[int]:
        if not listed:
            listed.append(sorted(unit_offsets() if callable(unit_offsets) else unit_offsets))
        return listed[0]

    found: set[int] = set()
    rest: list[Needle] = []
    for needle in needles:
        with _lock:
            answer = _kept(sections).get(needle)
        if answer is not None:
            answer.done.wait()
        positions = answer.positions if answer is not None else None
        if positions is None or (positions and answer is not None and answer.units is not None
                                 and answer.units != tuple(units())):  # fmt: skip
            rest.append(needle)
            continue
        for position in positions:
            ordered = units()
            unit = bisect_right(ordered, position) - 1
            if unit >= 0:
                found.add(ordered[unit])
    if not rest:
        return found
    witnesses: dict[Needle, list[int]] = {}
    found |= units_holding(sections, _SECTION, rest, units, witnesses=witnesses)
    with _lock:
        kept = _kept(sections)
        for needle in rest:
            hits = witnesses.get(needle, [])
            answer = _Answer(units=tuple(listed[0]) if hits else None, positions=hits)
            answer.done.set()
            kept[needle] = answer
        if len(kept) > 2 * _KEPT:  # the oldest answers go, _KEPT at a time
            done = [needle for needle, answer in kept.items() if answer.done.is_set()]
            for needle in done[: len(kept) - _KEPT]:
                del kept[needle]
    return found


def first_hits(sections: ElfSections, needles: Sequence[Needle],
               units: Sequence[int]) -> dict[Needle, dict[int, int]] | None:  # fmt: skip
    """Per needle, each of `units` (those `holding` found holding some of `needles`)
    that holds it -> where it is first there, from the answers kept; None when one is not
    known. The narrowing after the search (definers.py) starts there, and skips a needle
    its unit lacks. (Given only some of those units, a unit left out's hits count for
    the one before it, past that one's end: its caller checks.)"""
    with _lock:
        kept = _kept(sections)
        answers = [kept.get(needle) for needle in needles]
    units = sorted(units)  # (bisected)
    listed = frozenset(units)
    out: dict[Needle, dict[int, int]] = {}
    for needle, answer in zip(needles, answers, strict=True):
        if answer is None or not answer.done.is_set() or answer.positions is None:
            return None
        if answer.units is not None and not listed <= frozenset(answer.units):
            return None  # found with another unit list: its first hits may not be these
        firsts: dict[int, int] = {}
        for position in answer.positions:
            index = bisect_right(units, position) - 1
            if index >= 0 and position < firsts.get(units[index], position + 1):
                firsts[units[index]] = position
        out[needle] = firsts
    return out


def release(sections: ElfSections, needles: Sequence[Needle]) -> None:
    """Let the askers of `needles` (planned, not to be searched ahead) search themselves."""
    with _lock:
        kept = _kept(sections)
        for needle in needles:
            answer = kept.get(needle)
            if answer is not None and not answer.done.is_set():
                del kept[needle]
                answer.done.set()
