"""An outer frame's registers as gdb reads them through its unwinders.

The unwinder carries only the callee-saved registers up the stack (and those a CFI row
restores). gdb's dwarf2 unwinder reads a register no rule mentions as the callee has it
(DWARF2_FRAME_REG_UNSPECIFIED: same value), down to frame 0, unless a row says undefined.
A location in an outer frame reads such a register so: gcc -O2's `v` of `lib2 (int v)
{ return hidden (v) + 1; }` is DW_OP_reg5 (rdi) across the call, as its IPA register
allocation knows the static `hidden` keeps rdi, and gdb's `bt` shows `lib2 (v=2)` with
rdi read from frame 0.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from aliceserver.debuggers.restamp import restamped
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
from aliceserver.debuggers.symbols.dwarf.unwind import UnwoundFrame

if TYPE_CHECKING:
    from aliceserver.debuggers.source.variables import FrameView


class SameValues(Mapping[str, int]):
    """Frame `index`'s registers: its own, else (not undefined there) its callee's, down
    to frame 0, each looked up when asked."""

    __slots__ = ("_frames", "_index")

    def __init__(self, frames: Sequence[UnwoundFrame], index: int) -> None:
        self._frames, self._index = frames, index  # no copy: a deep stack's frames ask each

    def _down(self) -> Iterator[UnwoundFrame]:
        """The frame, then its callees to frame 0 (walked only as far as a lookup goes)."""
        frames = self._frames
        return (frames[level] for level in range(self._index, -1, -1))

    def __getitem__(self, name: str) -> int:
        return self._held(name)[0]

    def from_frame_0(self, name: str) -> bool:
        """Whether frame 0 gives `name` here: no frame between restores it."""
        return name in self and self._held(name)[1] is self._frames[0]

    def _held(self, name: str) -> tuple[int, UnwoundFrame]:
        for frame in self._down():
            registers = frame.registers
            if name in registers:
                return registers[name], frame
            if name in frame.undefined:
                break  # gdb's <not saved>: no callee's value shows through
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        try:
            self[name]
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        """The frame's own first (in their order), then the callees' that show through."""
        seen: set[str] = set()
        for frame in self._down():
            for name in frame.registers:
                if name not in seen:
                    seen.add(name)
                    if name in self:
                        yield name

    def __len__(self) -> int:
        return sum(1 for _ in self)


def same_value_frame(frames: Sequence[UnwoundFrame], index: int) -> UnwoundFrame:
    """frames[index], its registers read as gdb's (frame 0 has all its own)."""
    frame = frames[index]
    return frame if index == 0 else restamped(frame, registers=SameValues(frames, index))


def same_value_writer(
    registers: Mapping[str, int], innermost: Callable[[], FrameView] | None
) -> Callable[[str, int], None] | None:
    """How an outer frame writes a register: frame 0's where it has frame 0's value, as
    gdb's put_frame_register follows the same-value rule down (`set var v = 5` of lib2's
    v in rdi, `print $eflags = 0x202` up the stack); a saved one is not written here."""
    if innermost is None or not isinstance(registers, SameValues):
        return None
    same = registers

    def write(name: str, value: int) -> None:
        setter = innermost().set_register
        if not same.from_frame_0(name) or setter is None:
            raise EvaluationError("registers of outer frames cannot be written")
        setter(name, value)

    return write
