"""What a gdb command runs against: the selected frame and what earlier commands left."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aliceserver.adapters.gdbcommands.listing import ListPosition

Write = Callable[[str], None]
# The address a command prints for a runtime one: MI shows link-time addresses before the
# program runs, as gdb does (its symbol probe is loaded already).
Shown = Callable[[int], int]


def same_address(address: int) -> int:
    return address


@dataclass(frozen=True, slots=True)
class Selection:
    """gdb's selected thread and frame; thread_id None when no program is stopped."""

    thread_id: int | None
    level: int = 0


@dataclass(slots=True)
class ExamineMemory:
    """What `x` remembers (gdb's last_format, last_size, last_count, next_address)."""

    format: str = ""  # "" is gdb's 0: natural (decimal for the sized integers)
    size: str = "w"  # b h w g, or "a" for an address's size
    count: int = 0
    next_address: int | None = None
    # The last unit shown, for `$_` and `$__`: (address, size, bytes or None when unread).
    last_unit: tuple[int, int, bytes | None] | None = None


@dataclass(slots=True)
class CommandMemory:
    """One session's memory of its gdb commands."""

    examine: ExamineMemory = field(default_factory=ExamineMemory)
    print_format: str = ""  # gdb's last_format: print's and call's /r or / alone take it again
    values_shown: int = 1  # where `show values +` goes on from
    # gdb's current source file and last_line_listed: where a bare `info line` looks (set
    # by a stop's source line and `list`'s first line).
    listed: tuple[str, int] | None = None
    # a bare `info line` after another goes on to the next line, without moving `list`'s
    # position: (the `listed` it followed, that next line)
    info_line_next: tuple[tuple[str, int], tuple[str, int]] | None = None
    list_position: ListPosition | None = None  # where a bare `list` and `list -` go on
    # `commands N ... end`: each breakpoint's command list (breakpoint_scripts.py)
    breakpoint_commands: dict[int, tuple[str, ...]] = field(default_factory=dict)
    # gdb's stop_bpstat: the breakpoints the last stop was for (`continue N` sets their
    # ignore counts), and the command lists that stop has yet to run
    stop_breakpoints: tuple[int, ...] = ()
    stop_momentary: bool = False  # at until/advance LOCATION's momentary breakpoint (gone since)
    actions: list[tuple[str, ...]] = field(default_factory=list)


class LineBuffer:
    """A Write that hands `sink` whole lines (gdb's MI sends one console record a line);
    `flush` passes on the rest, such as the `0x0:\t` before a memory error."""

    def __init__(self, sink: Write) -> None:
        self._sink = sink
        self._pending: list[str] = []

    def __call__(self, text: str) -> None:
        self._pending.append(text)
        if text.endswith("\n"):
            self.flush()

    def flush(self) -> None:
        if self._pending:
            self._sink("".join(self._pending))
            self._pending.clear()
