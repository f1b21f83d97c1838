"""Which frames gdb shows of a stack."""

from __future__ import annotations

from collections.abc import Sequence

from aliceserver.debuggers.model import StackFrame


def frames_to_main(frames: Sequence[StackFrame]) -> list[StackFrame]:
    """The frames up to the program's main function (gdb's `backtrace past-main off`):
    for Rust `crate::main`, not the runtime's `lang_start` and `catch_unwind` below it."""
    for index, frame in enumerate(frames):
        if frame.program_main:
            return list(frames[: index + 1])
    return list(frames)


def past_main(frames: Sequence[StackFrame]) -> set[int]:
    """The levels of the frames below the program's main function (the runtime's)."""
    for index, frame in enumerate(frames):
        if frame.program_main:
            return {f.level for f in frames[index + 1 :]}
    return set()
