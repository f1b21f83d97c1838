"""Registers read on demand (a stub's stop reply carries a few, the rest cost a `g`): an
unwinding kept across stops compares those it read, and a caller's kept (same value)
registers are read from the callee only when asked."""

from __future__ import annotations

from typing import cast

from aliceserver.debuggers.source.keptframes import KeptUnwindings, Read
from aliceserver.debuggers.symbols.dwarf.readregisters import CallerRegisters, ReadRegisters
from aliceserver.debuggers.symbols.dwarf.unwind import StackUnwinder, UnwindLookups


class Live(dict[str, int]):
    """A stop's registers, the names read from it counted."""

    def __init__(self, values: dict[str, int]) -> None:
        super().__init__(values)
        self.asked: list[str] = []

    def __getitem__(self, name: str) -> int:
        self.asked.append(name)
        return super().__getitem__(name)


def _unwinding(kept: KeptUnwindings, live: Live, made: list[int]) -> StackUnwinder:
    registers = ReadRegisters(live)

    def make(read: Read) -> StackUnwinder:
        made.append(registers["rip"] + registers["rsp"])  # frame 0's CFI step reads these two
        return cast(StackUnwinder, object())

    return kept.unwinder(1, registers, lookups, lambda address, size: b"", make)


lookups = UnwindLookups()


def test_a_kept_unwinding_compares_only_the_registers_it_read() -> None:
    kept, made = KeptUnwindings(), list[int]()
    first = _unwinding(kept, Live({"rip": 1, "rsp": 0x7FF0, "rbx": 5}), made)
    kept.next_stop()
    later = Live({"rip": 1, "rsp": 0x7FF0, "rbx": 6})  # rbx moved: the unwinding never read it
    assert _unwinding(kept, later, made) is first and "rbx" not in later.asked
    kept.next_stop()
    _unwinding(kept, Live({"rip": 1, "rsp": 0x7FE0, "rbx": 6}), made)  # the stack pointer moved
    assert len(made) == 2


def test_a_callers_kept_registers_are_read_from_frame_0_when_asked() -> None:
    live = Live({"rip": 1, "rsp": 0x7FF0, "rbx": 5, "r12": 7, "rax": 9})
    frame0 = ReadRegisters(live)
    order = ("rbx", "rbp", "r12")
    caller: CallerRegisters = CallerRegisters({"rsp": 0x8000, "rip": 2}, frame0, ["rbx", "r12"], order)
    for _ in range(10_000):  # a deep stack: each level looks one level down, not ten thousand
        caller = CallerRegisters({"rsp": caller["rsp"] + 16, "rip": 3}, caller, ["rbx", "r12"], order)
    assert live.asked == []
    assert "rbx" in caller and "rax" not in caller and "rbp" not in caller
    assert caller["rbx"] == 5 and live.asked == ["rbx"] and frame0.read == {"rbx": 5}
    assert list(caller) == ["rbx", "r12", "rsp", "rip"] and dict(caller)["r12"] == 7
    lost = CallerRegisters({"rsp": 0, "rip": 4}, caller, ["r12"], order)  # a rule left rbx undefined
    assert "rbx" not in lost and lost["r12"] == 7
