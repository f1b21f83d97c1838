"""One patched breakpoint site: its plan, its trampoline with a count prefix, its counters
in the data area, and the thread put back at the site from a trampoline's saved registers
(patched_breakpoints.py decides which sites get one)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from aliceserver.debuggers.ptrace.patch_counts import IgnoreWindow, counting_gate, may_be_undecided
from aliceserver.debuggers.ptrace.patches.area import PatchArea
from aliceserver.debuggers.ptrace.patches.codegen import compile_code
from aliceserver.debuggers.ptrace.patches.install import PatchTable
from aliceserver.debuggers.ptrace.patches.shadow_stack import moved_call_refusal, shadow_stack_on
from aliceserver.debuggers.ptrace.patches.sites import Refusal, SitePlan, plan_site
from aliceserver.debuggers.ptrace.patches.trampoline import (
    SAVED,
    Logpoint,
    RingBuffer,
    Trampoline,
    build_trampoline,
    registers_from_saved_block,
)
from aliceserver.debuggers.symbols.dwarf.expr import condition_ir as ir
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.debuggers.logpoints import LogSpec
    from aliceserver.debuggers.ptrace.conditions import ExpressionCondition
    from aliceserver.debuggers.ptrace.inferior import Inferior
    from aliceserver.debuggers.ptrace.tracee import Tracee
    from aliceserver.debuggers.ptrace.traps import LogicalBreakpoint, PhysicalTrap
    from aliceserver.debuggers.symbols.process import ProcessSymbols

# qwords in the data area: the trampoline's hit counter and ignore count (patch_counts.py),
# and the arrivals the count prefix adds up.
_COUNTERS: Final = 24
_ARRIVALS: Final = 16
_SLACK: Final = 64  # room for the relocated instructions growing with the distance


def count_prefix(at: int, counter: int) -> bytes:
    """Code at `at` adding one to the qword at `counter`, flags kept, then falling through:
    every arrival at the site counted, as a trap counts each hit, the condition's too."""
    inc_end = at + 6 + 8  # lea rsp; pushfq; lock inc qword [rip+disp32]
    return (b"\x48\x8d\x64\x24\x80" + b"\x9c" + b"\xf0\x48\xff\x05"
            + struct.pack("<i", counter - inc_end) + b"\x9d" + b"\x48\x8d\xa4\x24\x80\x00\x00\x00")  # fmt: skip


@dataclass(eq=False)
class PatchedSite:
    trap: PhysicalTrap
    conditions: tuple[ExpressionCondition, ...]  # its breakpoints' (none: an ignore count alone)
    node: ir.Node | None
    plan: SitePlan
    trampoline: Trampoline
    area: PatchArea
    data_offset: int
    code_at: int  # the count prefix, then the trampoline
    code_size: int  # what was allocated for both
    breakpoints: tuple[LogicalBreakpoint, ...]
    window: IgnoreWindow
    log: LogSpec | None = None  # a logpoint: its values go to `ring`
    ring: RingBuffer | None = None  # its area's (patched_logs.py), which it does not own
    arrivals_seen: int = 0  # the arrivals counter when last folded into the hit counts
    judged: int = 0  # arrivals since then that the engine judged itself (counted there)

    def holds(self, pc: int) -> bool:
        return self.code_at <= pc < self.trampoline.end

    def trap_addresses(self) -> tuple[int, int, int, int]:
        t = self.trampoline
        return t.stop_trap, t.judge_trap, t.log_judge_trap, t.ring_full

    def fold(self) -> None:
        """The arrivals the program counted since the last look, less those the engine
        judged (and counted) itself, added to the breakpoint's hits and to its condition's
        compiled evaluations (machine code is compiled code too)."""
        if self.area.data.closed:
            return
        arrivals = struct.unpack_from("<Q", self.area.data, self.data_offset + _ARRIVALS)[0]
        unjudged = arrivals - self.arrivals_seen - self.judged
        self.arrivals_seen, self.judged = arrivals, 0
        for breakpoint in self.breakpoints:
            breakpoint.hit_count += unjudged
        for condition in self.conditions:
            condition.compiled += unjudged

    def free(self) -> None:
        """Its code and counters given back (no thread in it, no jump to it)."""
        self.area.free_code(self.code_at, self.code_size)
        self.area.free_data(self.data_offset, _COUNTERS)


def plan_at(inferior: Inferior, symbols: ProcessSymbols, table: PatchTable, address: int,
            near: int | None) -> SitePlan | Refusal:  # fmt: skip
    """The span of a patch at `address` in its function (with its .cold part), displaced
    to run `near` (a patch area's address) when known."""
    module = symbols.module_at(address)
    image = symbols.image_of(module.path) if module is not None else None
    hit = (
        image.symbol_at(address - module.base) if image is not None and module is not None else None
    )
    if module is None or image is None or hit is None or hit[0].size <= 0:
        return Refusal(f"no function with a known size holds {address:#x}")
    symbol, offset = hit
    start = address - offset
    code = table.mask(start, inferior.traps.mask(start, inferior.memory.read(start, symbol.size)))
    parts: list[tuple[int, bytes]] = []
    cold = image.find_symbol(symbol.name + ".cold")
    if cold is not None and cold.size > 0:
        at = cold.address + module.base
        parts.append((at, inferior.traps.mask(at, inferior.memory.read(at, cold.size))))
    plan = plan_site(code, start, address, displaced_near=near, other_parts=parts)
    if isinstance(plan, Refusal):
        return plan
    return moved_call_refusal(plan, shadow_stack_on(inferior.pid)) or plan


def build_site(inferior: Inferior, table: PatchTable, trap: PhysicalTrap, conditions: tuple[ExpressionCondition, ...],
               node: ir.Node | None, plan: SitePlan, area: PatchArea,
               log: tuple[LogSpec, list[bytes], RingBuffer] | None = None) -> PatchedSite:  # fmt: skip
    """The trampoline written in `area` and the jump over `plan`'s span (every thread
    stopped, none inside the span), the trap taken out; the trap back on a failure.
    `log`: a logpoint's spec, its values' code and its area's ring."""
    code = compile_code(node, SAVED.offsets) if node is not None else None
    data = area.alloc_data(_COUNTERS)
    counters = area.data_address + data
    logpoint = Logpoint(plan.address, log[1], log[2], strings=log[0].strings) if log is not None else None

    def build(at: int, displaced: bytes) -> Trampoline:
        return build_trampoline(address=at, span_end=plan.end, displaced=displaced, condition=code,
                                hit_counter=counters, ignore_count=counters + 8, logpoint=logpoint)  # fmt: skip

    sizing = build(area.code_address, plan.original)
    prefix_size = len(count_prefix(0, 0))
    size = prefix_size + len(sizing.code) + _SLACK
    code_at = area.alloc_code(size)
    entry = code_at + prefix_size
    displaced_entry = entry + (sizing.displaced_entry - sizing.entry)
    trampoline = build(entry, plan.relocated(displaced_entry))
    assert trampoline.displaced_entry == displaced_entry
    assert prefix_size + len(trampoline.code) <= size
    inferior.memory.write(code_at, count_prefix(code_at, counters + _ARRIVALS) + trampoline.code)
    was_inserted = trap.inserted
    if was_inserted:
        inferior.remove_trap(trap)
    try:
        table.install(inferior, plan, code_at)
    except AliceError:
        area.free_code(code_at, size)
        area.free_data(data, _COUNTERS)
        if was_inserted:
            inferior.insert_trap(trap)
        raise
    breakpoints = tuple(bp for bp in trap.logical if bp.enabled)
    # A condition the program may not decide is judged with the ignore count by the gate;
    # several breakpoints each keep their own count there too.
    gate = (
        None
        if may_be_undecided(node) or len(breakpoints) > 1
        else counting_gate(breakpoints[0].condition)
    )
    window = IgnoreWindow(area.data, data, gate)
    window.reopen(judging=False)
    return PatchedSite(trap, conditions, node, plan, trampoline, area, data, code_at, size, breakpoints, window,
                       log[0] if log is not None else None, log[2] if log is not None else None)  # fmt: skip


def put_back(inferior: Inferior, t: Tracee, site: PatchedSite) -> None:
    """The thread at the site with the program's registers, from the saved block."""
    regs = inferior.regs(t)
    block = inferior.memory.read(int(regs.rbx), SAVED.size)
    for name, value in registers_from_saved_block(block).items():
        setattr(regs, name, value)
    regs.rip = site.plan.address
    t.regs_dirty = True
