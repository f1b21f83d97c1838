"""The ignore window a jump patch's trampoline judges (patch_counts.py): hits the program
lets go are handed back to the gate exactly once, however the looks fall between them."""

from __future__ import annotations

import mmap
import struct

from aliceserver.debuggers.ptrace.patch_counts import IgnoreWindow, counting_gate, may_be_undecided
from aliceserver.debuggers.symbols.dwarf.expr import condition_ir as ir


class Gate:
    """gdb's ignore count, as the MI's gate keeps it."""

    def __init__(self, ignore: int) -> None:
        self.ignore, self.hits = ignore, 0

    def __call__(self, tid: int) -> bool:
        return True

    def ignored(self) -> int:
        return self.ignore

    def skipped(self, count: int) -> None:
        self.hits += count
        self.ignore -= count


def take(data: mmap.mmap, times: int) -> list[bool]:
    """What the trampoline does for `times` hits whose condition holds: True, let go."""
    let_go = []
    for _ in range(times):
        hits, ignore = struct.unpack_from("<2Q", data, 0)
        struct.pack_into("<Q", data, 0, hits + 1)  # lock xadd: this hit's number is `hits`
        let_go.append(hits < ignore)
    return let_go


def test_the_program_lets_go_what_the_gate_would_and_tells_it_once() -> None:
    data = mmap.mmap(-1, 16)
    gate = Gate(5)
    window = IgnoreWindow(data, 0, gate)
    window.reopen(judging=False)
    assert take(data, 3) == [True] * 3
    window.settle()  # a stop elsewhere: the three are told
    window.settle()  # and not again
    assert (gate.hits, gate.ignore) == (3, 2)
    gate.ignore = 4  # `ignore 1 4` while stopped
    window.reopen(judging=False)
    assert take(data, 6) == [True] * 4 + [False] * 2
    window.settle()
    assert (gate.hits, gate.ignore) == (7, 0)


def test_a_thread_between_its_count_and_its_compare_keeps_the_window() -> None:
    data = mmap.mmap(-1, 16)
    gate = Gate(2)
    window = IgnoreWindow(data, 0, gate)
    window.reopen(judging=False)
    assert take(data, 3) == [True, True, False]
    gate.ignore = 10
    window.reopen(judging=True)  # its number (2) would be let go under a new window: not moved
    assert take(data, 1) == [False]
    window.settle()
    assert (gate.hits, gate.ignore) == (2, 8)


def test_without_a_gate_nothing_is_let_go() -> None:
    data = mmap.mmap(-1, 16)
    window = IgnoreWindow(data, 0, None)
    window.reopen(judging=False)
    assert take(data, 2) == [False, False]
    assert counting_gate(object()) is None and counting_gate(Gate(1)) is not None


def test_only_a_division_by_what_may_be_zero_is_undecided() -> None:
    x = ir.Register("rax")
    assert not may_be_undecided(
        ir.Compare("==", ir.Binary("%", x, ir.Const(100), 32, True), ir.Const(0), True, True)
    )
    assert may_be_undecided(ir.Logical("&&", x, ir.Binary("/", x, x, 64, False)))
    assert may_be_undecided(ir.Binary("%", x, ir.Convert(ir.Const(256), 8, False), 32, True))
    assert not may_be_undecided(None)
