"""The frame of a call into the program left stopped (gdb's dummy frame): the called
function returns to the entry point with rsp just above the return address pushed, and
that frame's caller is the state saved before the call, not whatever the stack holds
there. gdb's backtrace shows it as `<function called from gdb>`, then the frames of the
thread as it was when the call was made (calls/driver.py keeps that state, whichever
backend ran the call)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Callable

from aliceserver.debuggers.calls.settings import CallSettings, SavedRegisters
from aliceserver.debuggers.model import SymbolLocation
from aliceserver.debuggers.source.frames import DUMMY, DUMMY_NAME, Unwind
from aliceserver.debuggers.symbols.dwarf.unwind import UnwoundFrame


class DummyFrames:
    """The source level's CallFrames (source/frames.py) over the calls left stopped."""

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
    frames: list[UnwoundFrame], entry: int | None, dummies: Mapping[tuple[int, int], SavedRegisters], pid: int,
    unwind: Unwind, limit: int,
) -> list[UnwoundFrame]:
    """`frames` with each call's frame recognised and its callers unwound from the state
    saved before the call (as often as calls nest)."""
    if entry is None or not dummies:
        return frames
    out: list[UnwoundFrame] = []
    while True:
        at = next((i for i, f in enumerate(frames) if i > 0 and f.pc == entry and
                   (pid, _sp(f)) in dummies), None)  # fmt: skip
        if at is None:
            return out + frames
        frame = frames[at]
        rsp = _sp(frame)
        out += frames[:at]
        out.append(replace(frame, level=len(out), cfa=rsp, method=DUMMY,
                           symbol=SymbolLocation(frame.pc, DUMMY_NAME, 0, None)))  # fmt: skip
        if len(out) >= limit:
            return out
        saved = dict(dummies[(pid, rsp)].general_values())
        frames = [replace(f, level=len(out) + f.level) for f in unwind(saved, limit - len(out))]
        if frames:  # its pc is where the thread was, no return address: exact, as a signal's
            frames[0] = replace(frames[0], method="signal")



def _sp(frame: UnwoundFrame) -> int:
    """The frame's stack pointer (x86-64's rsp, aarch64's sp)."""
    return frame.registers.get("rsp", frame.registers.get("sp", -1))
