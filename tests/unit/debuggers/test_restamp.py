"""restamped is dataclasses.replace for the frames copied at each stop."""

from __future__ import annotations

from dataclasses import replace

from aliceserver.debuggers.model import SourcePosition, StackFrame, SymbolLocation, VariableInfo
from aliceserver.debuggers.restamp import restamped
from aliceserver.debuggers.symbols.dwarf.unwind import UnwoundFrame

SYMBOL = SymbolLocation(0x1234, "hit", 4, "/bin/prog")


def test_a_stack_frame_copied_with_changes_equals_replaces() -> None:
    frame = StackFrame(
        2, 0x1234, 0x7FF0, "hit", SourcePosition("a.c", 25), "/bin/prog", SYMBOL, inlined=True
    )
    copy = restamped(frame, level=5, cfa=0x7FA0)
    assert copy == replace(frame, level=5, cfa=0x7FA0)
    assert copy is not frame and frame.level == 2 and frame.cfa == 0x7FF0


def test_every_field_is_copied() -> None:
    frame = UnwoundFrame(
        0, 0x1234, 0x7FF0, {"rip": 0x1234}, SYMBOL, "cfi", undefined=frozenset({"rbx"})
    )
    assert restamped(frame) == frame
    info = VariableInfo("x", "int", "5", address=0x7FF0, block_depth=1, position=3)
    assert restamped(info, address=0x7FA0) == replace(info, address=0x7FA0)
