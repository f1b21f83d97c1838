"""The frame of a call into the program left stopped (gdb's dummy frame): the called
function returns to the entry point with rsp just above the return address pushed, and
that frame's caller is the state saved before the call, not whatever the stack holds
there. gdb's backtrace shows it as `<function called from gdb>`, then the frames of the
thread as it was when the call was made (infcall.py keeps that state)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from aliceserver.debuggers.model import StackFrame, SymbolLocation
from aliceserver.debuggers.ptrace import registers as register_sets
from aliceserver.debuggers.ptrace.infcall import SavedState
from aliceserver.debuggers.symbols.dwarf.unwind import UnwoundFrame

DUMMY = "dummy"  # UnwoundFrame.method of a call's frame
DUMMY_NAME = "<function called from gdb>"

Unwind = Callable[[Mapping[str, int], int], list[UnwoundFrame]]  # (registers, limit) -> frames


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


def dummy_stack_frame(frame: UnwoundFrame) -> StackFrame:
    return StackFrame(
        level=frame.level, pc=frame.pc, cfa=frame.cfa, function=DUMMY_NAME, source=None, module=None,
        symbol=frame.symbol, called_from_debugger=True,
    )  # fmt: skip
