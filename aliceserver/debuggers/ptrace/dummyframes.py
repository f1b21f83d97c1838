"""The frame of a call into the program left stopped (gdb's dummy frame): the called
function returns to the entry point with rsp just above the return address pushed, and
that frame's caller is the state saved before the call, not whatever the stack holds
there. gdb's backtrace shows it as `<function called from gdb>`, then the frames of the
thread as it was when the call was made (infcall.py keeps that state)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Callable

from aliceserver.debuggers.model import SymbolLocation
from aliceserver.debuggers.ptrace import registers as register_sets
from aliceserver.debuggers.ptrace.infcall import CallSettings, SavedState
from aliceserver.debuggers.source.frames import DUMMY, DUMMY_NAME, Unwind
from aliceserver.debuggers.symbols.dwarf.unwind import UnwoundFrame


class DummyFrames:
    """The source level's CallFrames (source/frames.py) over the calls infcall.py left stopped."""

    def __init__(self, settings: CallSettings, entry: Callable[[], int | None]) -> None:
        self._settings = settings
        self._entry = entry  # the program's entry point, where a call returns to

    def pending(self) -> bool:
        return bool(self._settings.dummies)

    def through_calls(
        self, frames: list[UnwoundFrame], pid: int, unwind: Unwind, limit: int
    ) -> list[UnwoundFrame]:
        return through_calls(frames, self._entry(), self._settings.dummies, pid, unwind, limit)


def through_calls(
    frames: list[UnwoundFrame], entry: int | None, dummies: Mapping[tuple[int, int], SavedState], pid: int,
    unwind: Unwind, limit: int,
) -> list[UnwoundFrame]:
    """`frames` with each call's frame recognised and its callers unwound from the state
    saved before the call (as often as calls nest)."""
    if entry is None or not dummies:
        return frames
    out: list[UnwoundFrame] = []
    while True:
        at = next((i for i, f in enumerate(frames) if i > 0 and f.pc == entry and
                   (pid, f.registers.get("rsp", -1)) in dummies), None)  # fmt: skip
        if at is None:
            return out + frames
        frame = frames[at]
        rsp = frame.registers["rsp"]
        out += frames[:at]
        out.append(replace(frame, level=len(out), cfa=rsp, method=DUMMY,
                           symbol=SymbolLocation(frame.pc, DUMMY_NAME, 0, None)))  # fmt: skip
        if len(out) >= limit:
            return out
        saved = register_sets.general(dummies[(pid, rsp)].regs).values
        frames = [replace(f, level=len(out) + f.level) for f in unwind(saved, limit - len(out))]
        if frames:  # its pc is where the thread was, no return address: exact, as a signal's
            frames[0] = replace(frames[0], method="signal")

