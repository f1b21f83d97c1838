"""Frame 0's arguments kept across the steps of a thread behind a stub, while what they
were made from is unchanged (keptarguments.py keeps them with an unwinding kept whole,
which a step never is: its pc moves).

Stepping in one function over gdbserver, each stop (MI's *stopped lists the arguments)
made them all again: each one's location-list entry found and evaluated, an optimized-out
one's DW_OP_entry_value and every NAME@entry read through the caller's call site, each
value read and formatted: most of a step's work. What they give follows from the
arguments in scope at the pc, the location-list entries covering it, frame 0's CFA, its
caller's pc and CFA, the registers read (frame 0's and its caller's: a stub's are read one
by one, so only those are compared) and the memory read (keptarguments.py compares that).
So a Frame stands for the frame the arguments were made in; the next stop is given the same
one where these are the same, its pc lies where each list looked up has the same entries
(`spans`) and each register read has the same value. Not where the making asked for all of
a frame's registers, went past the caller (a caller's own entry value, a tail call) or
gave no scope.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, TypeVar

from aliceserver.debuggers.restamp import restamped
from aliceserver.debuggers.source.samevalues import SameValues
from aliceserver.debuggers.symbols.dwarf.unwind import UnwoundFrame

if TYPE_CHECKING:
    from aliceserver.debuggers.source.variables import FrameView
    from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols

T = TypeVar("T")
Registers = Callable[[int], Mapping[str, int] | None]  # a frame's registers now, by level


@dataclass(slots=True, eq=False)
class Frame:
    """The frame some arguments were made in: compared by identity where they are kept."""

    key: Hashable
    registers: dict[tuple[int, str], int | None] = field(default_factory=dict)  # (level, name): value
    spans: list[tuple[int, int]] = field(default_factory=list)  # runtime [low, high) of the pc
    keepable: bool = True
    caller: Hashable | None = None  # the caller's place, where entry values read its frame

    def holds(self, key: Hashable, pc: int, registers: Registers, caller: Callable[[], Hashable]) -> bool:
        """Whether the frame at `pc` with `registers` (and `caller`, asked only where the
        arguments read that frame: main's caller is never unwound for them) is this one."""
        if not self.keepable or self.key != key or not all(low <= pc < high for low, high in self.spans):
            return False
        if self.caller is not None and caller() != self.caller:
            return False
        for (level, name), value in self.registers.items():
            now = registers(level)
            if now is None or (now[name] if name in now else None) != value:
                return False
        return True

    def watch(self, level: int, registers: Mapping[str, int]) -> Mapping[str, int]:
        """`registers` of the frame at `level` (0 or its caller), each one asked recorded."""
        return _Watched(registers, level, self)


class _Watched(Mapping[str, int]):
    __slots__ = ("_registers", "_level", "_frame")

    def __init__(self, registers: Mapping[str, int], level: int, frame: Frame) -> None:
        self._registers, self._level, self._frame = registers, level, frame

    def __getitem__(self, name: str) -> int:
        known = self._registers
        value = known[name] if name in known else None
        self._frame.registers.setdefault((self._level, name), value)
        if value is None:
            raise KeyError(name)
        return value

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        try:
            self[name]
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        self._frame.keepable = False  # all of them: not worth comparing
        return iter(self._registers)

    def __len__(self) -> int:
        return len(self._registers)


class SteppedFrames:
    """Each thread's Frame of the last stop its arguments were made at."""

    def __init__(self) -> None:
        self._kept: dict[int, Frame] = {}
        self.making: Frame | None = None  # the one arguments are made in now (Frames reads through it)

    def frame(self, thread_id: int, key: Hashable | None, frames: Callable[[int], list[UnwoundFrame]]) -> Frame | None:
        """The thread's last Frame where its frame 0 (`frames(n)`: the first n frames) is
        that one, else a new one (None: `key` None, nothing to keep)."""
        if key is None:
            return None
        kept = self._kept.get(thread_id)
        pc = frames(1)[0].pc
        if kept is not None and kept.holds(key, pc, partial(frame_registers, frames), partial(_caller, frames)):
            return kept
        return Frame(key)

    def made_in(self, thread_id: int, frame: Frame, caller: Callable[[], Hashable], make: Callable[[], T]) -> T:
        """`make()` with what it reads recorded in `frame`, kept as the thread's (with its
        caller's place where it read the caller's frame)."""
        frame.registers.clear()
        frame.spans.clear()
        frame.keepable, frame.caller = True, None
        outer, self.making = self.making, frame
        try:
            return make()
        finally:
            self.making = outer
            if frame.caller is not None:
                frame.caller = caller()
            self._kept[thread_id] = frame

    def forget(self, thread_id: int) -> None:
        self._kept.pop(thread_id, None)

    def arguments(
        self, thread_id: int, frames: Callable[[int], list[UnwoundFrame]],
        view: Callable[[], tuple[FrameView, ModuleSymbols | None, int]], lookups: Hashable, make: partial[T],
    ) -> tuple[Frame | None, list[tuple[int, int, bytes]], partial[T]]:  # fmt: skip
        """For KeptVariables: the Frame frame 0's arguments are made in (`frames`: frame 0
        and its caller; `view`: frame 0's, its symbols and pc), no reads covered by it, and
        `make` recording in that Frame."""
        frame = self.frame(thread_id, frame_key(*view(), frames(1), lookups), frames)
        if frame is None:
            return None, [], make
        return frame, [], partial(self.made_in, thread_id, frame, partial(_caller, frames), make)

    def view(self, level: int, view: FrameView) -> FrameView:
        """Frame `level`'s `view`; frame 0's with its registers and location lists recorded
        while arguments are made in a Frame."""
        making = self.making
        if making is None or level:
            return view
        return replace(view, frame=restamped(view.frame, registers=making.watch(0, view.frame.registers)),
                       spans=making.spans)  # fmt: skip

    def caller_view(self, of_frame_0: bool, view: FrameView) -> FrameView:
        """A caller's `view` for entry values, its registers recorded (frame 0's caller only:
        no other is compared)."""
        making = self.making
        if making is None:
            return view
        making.keepable &= of_frame_0
        making.caller = True  # its place, once made (made_in)
        return replace(view, frame=restamped(view.frame, registers=making.watch(1, view.frame.registers)))


def frame_key(view: FrameView, symbols: ModuleSymbols | None, lookup_pc: int, frames: list[UnwoundFrame],
              *how: Hashable) -> Hashable | None:  # fmt: skip
    """What frame 0's arguments stay the same with but the pc, what they read and the
    caller (Frame.caller): the scope's blocks at the pc and the CFA."""
    scope = None if symbols is None else symbols.frame_scope(view, lookup_pc=lookup_pc, inline_outer=view.inline_outer)
    if scope is None or not frames or frames[0].pc != view.frame.pc:
        return None
    blocks = tuple(die.offset for die in scope.scopes)
    return (symbols, view.bias, view.inline_outer, view.frame.cfa, blocks, *how)


def _caller(frames: Callable[[int], list[UnwoundFrame]]) -> Hashable:
    """The caller's pc, CFA and how it was found (None: none)."""
    found = frames(2)
    return (found[1].pc, found[1].cfa, found[1].method) if len(found) > 1 else None


def frame_registers(frames: Callable[[int], list[UnwoundFrame]], level: int) -> Mapping[str, int] | None:
    """Frame 0's registers, or its caller's as an entry value reads them (the callee's
    where its CFI restores none: _make_caller_frame's)."""
    if level == 0:
        return frames(1)[0].registers
    found = frames(2) if level == 1 else []
    return SameValues(found, 1) if len(found) > 1 else None
