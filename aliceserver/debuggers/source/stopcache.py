"""Answers computed for one stop, kept until the program moves or its state is written.

A front end asks the same questions several times per stop (MI's `*stopped` names the
frame and its arguments, then the client lists the frame's variables; DAP asks for the
stack, then scopes, then variables). Each answer costs an unwind, DWARF lookups and
memory reads; asked again at the same stop it is the same answer.

The engine's public calls read the cache from the caller's thread before handing work to
the tracer thread: an entry is only ever made at the current stop, and the tracer clears
the cache before any resume returns, so a hit needs no handoff.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from aliceserver.debuggers.model import (
    DynamicTypes,
    StackFrame,
    SymbolLocation,
    ThreadInfo,
    VariableInfo,
    VariableScope,
)
from aliceserver.debuggers.source.sharedvalues import SharedDescriptions
from aliceserver.debuggers.symbols.dwarf.unwind import UnwoundFrame

_MAX_DECODED = 4096  # distinct instruction encodings remembered for stepping

# (thread, level, scope, with aggregate values, the dynamic types asked for, with entry values)
VariablesKey = tuple[int, int, VariableScope, bool, DynamicTypes, bool]


@dataclass(slots=True)
class ShownStack:
    """A thread's frames as shown (inlined calls included, levels set), made so far from
    the front of its unwinding."""

    frames: list[UnwoundFrame]  # the unwinding they show (it may grow deeper)
    hidden: int  # inlined calls hidden at the top (see Frames.hidden_inline)
    shown: list[StackFrame] = field(default_factory=list)
    physical: int = 0  # frames[:physical] are shown
    hiding: bool = True  # the first frame not a dummy one is still to show (less `hidden`)


class StopCache:
    def __init__(self, on_values_changed: Callable[[], None] | None = None) -> None:
        self._on_values_changed = on_values_changed  # others' answers to drop with these
        # thread -> (the unwound frames the entries belong to, physical index -> frames shown)
        self._shown: dict[int, tuple[list[UnwoundFrame], dict[int, list[StackFrame]]]] = {}
        self._threads: tuple[object, list[ThreadInfo], bool] | None = None  # (process, its threads, details)
        self._shown_stacks: dict[int, ShownStack] = {}  # thread -> its frames shown so far
        self._shown_before: dict[int, ShownStack] = {}  # the last stop's, for kept unwindings
        self._places: dict[tuple[int, bool, bool, SymbolLocation], list[StackFrame]] = {}
        self._stacks: dict[tuple[int, int, int | None], list[StackFrame]] = {}  # stack_trace's
        # (thread, level, scope, with aggregates' values) -> the frame's variables
        self._variables: dict[VariablesKey, list[VariableInfo]] = {}
        # The first 16 bytes at a pc -> the length of the call instruction they start with
        # (None: not a call). Decoding depends on the bytes alone, so this outlives stops.
        self._calls: dict[bytes, int | None] = {}
        self._runs: dict[bytes, tuple[int, int]] = {}  # code -> Disassembler.straight_run
        self.shared = SharedDescriptions()  # scalars described once for every thread
        # thread -> its general registers as read at this stop (MI's thread names ask for
        # fs_base of each of 1,000 threads: one handoff to the tracer each)
        self._registers: dict[int, dict[str, int]] = {}
        self.writes = 0  # values_changed's calls so far

    def forget(self) -> None:
        """The program moved."""
        self._shown.clear()
        self._shown_before, self._shown_stacks = self._shown_stacks, {}
        self._places.clear()
        self._threads = None
        self._stacks.clear()
        self._variables.clear()
        self._registers.clear()
        self.shared.forget()

    def values_changed(self) -> None:
        """Memory or registers were written: values may differ, frames may too."""
        self.writes += 1
        self.forget()
        if self._on_values_changed is not None:
            self._on_values_changed()

    def shown_frames(
        self, thread_id: int, frames: list[UnwoundFrame], index: int,
        compute: Callable[[UnwoundFrame], list[StackFrame]],
    ) -> list[StackFrame]:  # fmt: skip
        entry = self._shown.get(thread_id)
        if entry is None or entry[0] is not frames:  # unwound anew: the old entries are stale
            entry = self._shown[thread_id] = (frames, {})
        shown = entry[1].get(index)
        if shown is None:
            shown = entry[1][index] = self._frames_at_place(frames[index], compute)
        return shown

    def _frames_at_place(
        self, frame: UnwoundFrame, compute: Callable[[UnwoundFrame], list[StackFrame]]
    ) -> list[StackFrame]:
        """What a frame shows depends on its place in the code but for its level and CFA: the
        same for 1,000 threads blocked in the same call, made once per stop. The frames keep
        the level and CFA of the first thread seen there: the caller numbers them anyway."""
        exact = frame.level == 0 or frame.method == "signal"  # its pc is no return address
        key = (frame.pc, exact, frame.signal_trampoline, frame.symbol)
        found = self._places.get(key)
        if found is None:
            found = self._places[key] = compute(frame)
        return found

    def shown_stack(self, thread_id: int, frames: list[UnwoundFrame], hidden: int) -> ShownStack:
        """The thread's frames shown so far at this stop; or at the last one where it was
        shown from the same unwinding (kept: keptframes.py), the program's symbols unchanged
        with it. What a place shows depends on the code alone (SourceSymbols.stack_frames):
        1,000 parked threads' stacks are not made again at each stop."""
        found = self._shown_stacks.get(thread_id) or self._shown_before.pop(thread_id, None)
        if found is None or found.frames is not frames or found.hidden != hidden:
            found = ShownStack(frames, hidden)
        self._shown_stacks[thread_id] = found
        return found

    def known_threads(self, process: object, details: bool = True) -> list[ThreadInfo] | None:
        """The threads listed at this stop, if `process` (the engine's inferior) is theirs
        and they were listed with their pcs and cores if `details` are asked for."""
        found = self._threads
        if found is None or found[0] is not process or (details and not found[2]):
            return None
        return list(found[1])

    def remember_threads(self, process: object, threads: list[ThreadInfo], details: bool = True) -> None:
        self._threads = (process, list(threads), details)

    def known_stack(self, key: tuple[int, int, int | None]) -> list[StackFrame] | None:
        found = self._stacks.get(key)
        return None if found is None else list(found)

    def remember_stack(self, key: tuple[int, int, int | None], frames: list[StackFrame]) -> list[StackFrame]:
        self._stacks[key] = list(frames)
        return frames

    def known_registers(self, thread_id: int) -> dict[str, int] | None:
        found = self._registers.get(thread_id)
        return None if found is None else dict(found)

    def remember_registers(self, thread_id: int, registers: dict[str, int]) -> None:
        self._registers[thread_id] = dict(registers)

    def known_variables(self, key: VariablesKey) -> list[VariableInfo] | None:
        found = self._variables.get(key)
        return None if found is None else list(found)

    def variables(
        self, key: VariablesKey, compute: Callable[[], list[VariableInfo]]
    ) -> list[VariableInfo]:
        found = self._variables.get(key)
        if found is None:
            found = self._variables[key] = compute()
        return list(found)  # callers may extend their copy

    def call_length(self, code: bytes, decode: Callable[[bytes], int | None]) -> int | None:
        if code in self._calls:
            return self._calls[code]
        if len(self._calls) >= _MAX_DECODED:
            self._calls.clear()
        length = self._calls[code] = decode(code)
        return length

    def straight_run(self, code: bytes, decode: Callable[[bytes], tuple[int, int]]) -> tuple[int, int]:
        found = self._runs.get(code)
        if found is None:
            if len(self._runs) >= _MAX_DECODED:
                self._runs.clear()
            found = self._runs[code] = decode(code)
        return found
