"""Ignore counts judged in the program by a jump patch (patched_breakpoints.py).

The trampoline counts each hit whose condition holds (lock xadd on its hit counter: each
thread gets its own number b) and lets it go while b is below the ignore qword; the engine
writes that qword only while every thread is stopped. The hits numbered [seen, ignore) are
the window handed to the program: the `ignored()` hits the front end's gate would let go
next. What the program let go is handed back to the gate (`skipped`) when the engine looks:
at every reported stop (all threads stopped: exact), and at the patch's own stop, reached
only with b >= ignore, when every number of the window has been taken and each taker lets
its hit go. A thread stopped between its xadd and its compare holds a number not judged
yet: the window is not moved then (the next stop does it).

Only a condition that always decides in the program gets a window: one the trampoline may
hand to the general evaluator (a division by zero) would be judged there with the gate's
ignore count as well, and both would count.
"""

from __future__ import annotations

import dataclasses
import mmap
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # imported where a condition is judged: every MI breakpoint asks counting_gate
    from aliceserver.debuggers.symbols.dwarf.expr import condition_ir as ir

# qwords from the counters' offset: the trampoline's hit_counter and ignore_count
_HITS, _IGNORE = 0, 8


@runtime_checkable
class CountingGate(Protocol):
    """A front end's gate that lets the engine count its ignore count (adapters/mi)."""

    def ignored(self) -> int: ...

    def skipped(self, count: int) -> None: ...


def counting_gate(condition: object) -> CountingGate | None:
    return condition if isinstance(condition, CountingGate) else None


def may_be_undecided(node: ir.Node | None) -> bool:
    """Whether machine code of `node` may hand a hit to the general evaluator."""
    from aliceserver.debuggers.symbols.dwarf.expr import condition_ir as ir

    if node is None:
        return False
    if (
        isinstance(node, ir.Binary)
        and node.op in ("/", "%")
        and not _nonzero(node.right, node.bits)
    ):
        return True  # by zero: undecided
    children = (getattr(node, f.name) for f in dataclasses.fields(node))
    nodes = (ir.Const, ir.Register, ir.Offset, ir.Load, ir.Convert, ir.Truth, ir.Unary, ir.Binary,
             ir.Compare, ir.Logical)  # fmt: skip
    return any(may_be_undecided(child) for child in children if isinstance(child, nodes))


def _nonzero(divisor: ir.Node, bits: int) -> bool:
    """Whether `divisor` is a constant that is not 0 in `bits` bits."""
    from aliceserver.debuggers.symbols.dwarf.expr import condition_ir as ir

    while isinstance(divisor, ir.Convert):
        bits = min(bits, divisor.bits)
        divisor = divisor.operand
    return isinstance(divisor, ir.Const) and divisor.value % (1 << bits) != 0


@dataclass(eq=False)
class IgnoreWindow:
    """One patch's hit counter and ignore qword in the data area (`data`, the server's view)."""

    data: mmap.mmap
    offset: int
    gate: CountingGate | None  # None: the program lets nothing go, the gate judges each hit
    seen: int = 0  # hits before this number are told to the gate

    def _get(self, at: int) -> int:
        value: int = struct.unpack_from("<Q", self.data, self.offset + at)[0]
        return value

    def settle(self) -> None:
        """Tell the gate the hits the program let go since the last look."""
        if self.data.closed:
            return
        skipped = max(0, min(self._get(_HITS), self._get(_IGNORE)) - self.seen)
        if skipped and self.gate is not None:
            self.gate.skipped(skipped)
        self.seen += skipped

    def reopen(self, *, judging: bool) -> None:
        """Every thread stopped: the window set to what the gate lets go now (unless a
        thread is `judging` a number it took: then as it is)."""
        if judging or self.data.closed:
            return
        self.settle()
        hits = self._get(_HITS)
        self.seen = hits
        ignored = self.gate.ignored() if self.gate is not None else 0
        struct.pack_into("<Q", self.data, self.offset + _IGNORE, hits + ignored)
