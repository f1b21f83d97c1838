"""The user's breakpoints, as every front end keeps them: one numbering, one record.

A `UserBreakpoint` is what the user asked for (its kind, the location as typed, its
condition, hit condition or ignore count, log message, temporary, enabled, thread) and
what it became (its hit count, the engine's location breakpoint or watchpoint and the
traps a stop names). A front end adds its own presentation by subclassing it (DAP's
verified state, the agent's reply fields). `UserBreakpoints` holds them under numbers from
a `BreakpointNumbers` that every table of the session shares (a DAP client's breakpoints
and its debug console's, the agent's and its console's: one numbering, as in gdb), and
maps the engine's ids back to them.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar


class BreakpointKind(enum.Enum):
    SOURCE_LINE = "source line"
    FUNCTION = "function"  # or any location spec the engine resolves (agent, console)
    ADDRESS = "address"
    DATA_WATCH = "data watch"
    CATCH = "catch"


def kind_of_spec(location: str) -> BreakpointKind:
    """The kind of a location spec as the engine reads it: `*ADDR` or an address, FILE:LINE
    (or a bare line), else a function."""
    text = location.strip()
    if text.startswith("*") or text.lower().startswith("0x"):
        return BreakpointKind.ADDRESS
    if ":" in text.replace("::", "") or text.isdigit():
        return BreakpointKind.SOURCE_LINE
    return BreakpointKind.FUNCTION


class BreakpointNumbers:
    """The session's breakpoint numbers, handed out once each (gdb's breakpoint_count)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._next = 1

    def take(self) -> int:
        with self._lock:
            number, self._next = self._next, self._next + 1
            return number

    @property
    def next(self) -> int:
        """The number the next breakpoint gets."""
        return self._next

    @next.setter
    def next(self, value: int) -> None:
        with self._lock:
            self._next = value

    @property
    def last(self) -> int:
        """The number of the last breakpoint made (gdb's $bpnum; 0 before any)."""
        return self._next - 1


@dataclass(eq=False, slots=True)
class UserBreakpoint:
    number: int
    kind: BreakpointKind
    location: str  # as the user gave it (a watch's expression or data id)
    condition: str | None = None
    hit_condition: str | None = None  # DAP's and the agent's (">= 3", "% 2")
    ignore_count: int = 0  # gdb's
    log_message: str | None = None
    temporary: bool = False
    enabled: bool = True
    thread: int | None = None
    hits: int = 0
    location_id: int | None = None  # the engine's location breakpoint
    watch_id: int | None = None  # or its watchpoint
    address_ids: tuple[int, ...] = ()  # the engine's traps: what a stop names

    def owns(self, engine_id: int, watch: bool) -> bool:
        """Whether a stop naming `engine_id` (a watchpoint's when `watch`) is this one's."""
        if watch:
            return self.watch_id == engine_id
        return engine_id in self.address_ids


B = TypeVar("B", bound=UserBreakpoint)


class UserBreakpoints(Generic[B]):
    """A front end's breakpoints by number, in the order they were made."""

    def __init__(self, numbers: BreakpointNumbers | None = None) -> None:
        self.numbers = numbers if numbers is not None else BreakpointNumbers()
        self._by_number: dict[int, B] = {}

    def add(self, breakpoint: B) -> B:
        self._by_number[breakpoint.number] = breakpoint
        return breakpoint

    def get(self, number: int) -> B | None:
        return self._by_number.get(number)

    def remove(self, number: int) -> B | None:
        """Take a breakpoint out; None when there is no such number."""
        return self._by_number.pop(number, None)

    def discard(self, breakpoint: B) -> None:
        if self._by_number.get(breakpoint.number) is breakpoint:
            del self._by_number[breakpoint.number]

    def __iter__(self) -> Iterator[B]:
        return iter(list(self._by_number.values()))

    def __len__(self) -> int:
        return len(self._by_number)

    def __contains__(self, number: object) -> bool:
        return number in self._by_number

    def by_location_id(self, location_id: int) -> B | None:
        return next((bp for bp in self if bp.location_id == location_id), None)

    def owners(self, engine_ids: Iterable[int], watch: bool = False) -> list[B]:
        """The breakpoints a stop's engine ids name (watchpoint ids when `watch`), each
        once, in the order of the ids."""
        found: list[B] = []
        every = list(self)  # a snapshot: a front end's pump reads while its commands add
        for ident in engine_ids:
            for bp in every:
                if bp.owns(ident, watch) and bp not in found:
                    found.append(bp)
        return found

    def count_hits(self, engine_ids: Iterable[int], watch: bool = False) -> list[B]:
        """As `owners`, each hit counted once."""
        found = self.owners(engine_ids, watch)
        for bp in found:
            bp.hits += 1
        return found
