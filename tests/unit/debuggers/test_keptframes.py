"""A thread's unwinding is taken again at a later stop only where nothing it read moved."""

from __future__ import annotations

from typing import cast

from aliceserver.debuggers.source.keptframes import KeptUnwindings, Read
from aliceserver.debuggers.symbols.dwarf.unwind import StackUnwinder, UnwindLookups
from aliceserver.errors import TargetError


class Stack:
    """Memory of a stopped program and an unwinder that reads two words of it."""

    def __init__(self) -> None:
        self.words = {0x7FF0: b"\x10" * 8, 0x7FF8: b"\x20" * 8}
        self.made = 0

    def read(self, address: int, size: int) -> bytes:
        """Words side by side read as one (the kept unwinding compares them so)."""
        data = b""
        while len(data) < size:
            if address + len(data) not in self.words:
                raise TargetError(f"Cannot access memory at address {address + len(data):#x}")
            data += self.words[address + len(data)]
        return data[:size]

    def make(self, read: Read) -> StackUnwinder:
        self.made += 1
        read(0x7FF0, 8)  # as an unwinding reads its return address and saved registers
        read(0x7FF8, 8)
        return cast(StackUnwinder, object())


def asked(kept: KeptUnwindings, stack: Stack, registers: dict[str, int], lookups: UnwindLookups) -> StackUnwinder:
    return kept.unwinder(2, registers, lookups, stack.read, stack.make)


def test_a_parked_thread_is_not_unwound_again_at_the_next_stop() -> None:
    kept, stack, lookups = KeptUnwindings(), Stack(), UnwindLookups()
    first = asked(kept, stack, {"rip": 1, "rsp": 0x7FF0}, lookups)
    kept.next_stop()
    assert asked(kept, stack, {"rip": 1, "rsp": 0x7FF0}, lookups) is first
    kept.next_stop()
    assert asked(kept, stack, {"rip": 1, "rsp": 0x7FF0}, lookups) is first and stack.made == 1


def test_moved_registers_written_stack_or_new_modules_unwind_again() -> None:
    kept, stack, lookups = KeptUnwindings(), Stack(), UnwindLookups()
    registers = {"rip": 1, "rsp": 0x7FF0}
    asked(kept, stack, registers, lookups)
    kept.next_stop()
    asked(kept, stack, {"rip": 2, "rsp": 0x7FF0}, lookups)  # it ran
    assert stack.made == 2
    kept.next_stop()
    stack.words[0x7FF8] = b"\x21" + b"\x20" * 7  # a saved register's slot written
    asked(kept, stack, {"rip": 2, "rsp": 0x7FF0}, lookups)
    assert stack.made == 3
    kept.next_stop()
    asked(kept, stack, {"rip": 2, "rsp": 0x7FF0}, UnwindLookups())  # a library mapped or dropped
    assert stack.made == 4
    kept.next_stop()
    del stack.words[0x7FF0]  # unmapped: unwound again, which says what it cannot read
    try:
        asked(kept, stack, {"rip": 2, "rsp": 0x7FF0}, lookups)
    except TargetError:
        pass
    assert stack.made == 5


def test_kept_one_stop_without_being_asked_and_forgotten_when_registers_are_written() -> None:
    kept, stack, lookups = KeptUnwindings(), Stack(), UnwindLookups()
    registers = {"rip": 1, "rsp": 0x7FF0}
    asked(kept, stack, registers, lookups)
    kept.next_stop()
    kept.next_stop()  # a stop where the thread was not shown
    asked(kept, stack, registers, lookups)
    assert stack.made == 2
    kept.next_stop()
    kept.forget(2)  # `set var $rsp = ...` and back
    asked(kept, stack, registers, lookups)
    assert stack.made == 3
