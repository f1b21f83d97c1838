"""A CFI row's step made ready once: the common row (CFA = register + offset, every
rule an offset from the CFA, the return address among them) read as a plan of names and
offsets, its saved slots fetched with one read.

The same rows serve every frame of 1,000 threads parked alike: the general step
(unwind._step_cfi) matches each rule's kind, finds its register's name and checks for
the return column again at every frame. A plan does it once per row; any other row,
registers read on demand, or a read that fails take the general step, which has its
rules for them (a lost slot, an unreadable return address).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from aliceserver.debuggers.arch.base import Architecture
from aliceserver.debuggers.symbols.dwarf.cfa_program import MASK64, RuleKind, UnwindRow
from aliceserver.errors import TargetError

ReadMemory = Callable[[int, int], bytes]
_SPAN = 512  # the general step's batch: slots farther apart are read one by one there


@dataclass(frozen=True, slots=True)
class StepPlan:
    cfa_register: str
    cfa_offset: int
    same_value: tuple[str, ...]  # the caller keeps these as they are (gdb's same value)
    sp: str
    low: int  # the saved slots lie in [CFA + low, CFA + high)
    high: int
    saved: tuple[tuple[tuple[str, ...], int], ...]  # (registers given, offset from low)


def step_plan(row: UnwindRow, arch: Architecture) -> StepPlan | None:
    """The row's plan, or None where the general step must run (another rule's kind, a CFA
    expression, no saved return address, slots too far apart for one read)."""
    names = arch.dwarf_registers
    if row.cfa.expression is not None or row.cfa.register not in names:
        return None
    saved: list[tuple[tuple[str, ...], int]] = []
    has_return = False
    for number, rule in row.rules:
        name = names.get(number)
        is_ra = number == row.return_column
        if name is None and not is_ra:
            continue  # not tracked, as the general step skips it
        if rule.kind is not RuleKind.OFFSET:
            return None
        targets = [arch.pc] if is_ra else []
        if name is not None and name not in targets:
            targets.append(name)
        saved.append((tuple(targets), rule.value))
        has_return = has_return or is_ra
    if not has_return:
        return None
    low = min(offset for _, offset in saved)
    high = max(offset for _, offset in saved) + 8
    if high - low > _SPAN:
        return None
    return StepPlan(names[row.cfa.register], row.cfa.offset, tuple(arch.same_value), arch.sp, low, high,
                    tuple((targets, offset - low) for targets, offset in saved))  # fmt: skip


def planned_step(
    plan: StepPlan, regs: Mapping[str, int], read: ReadMemory
) -> tuple[int, dict[str, int]] | None:
    """The CFA and the caller's registers as the general step gives them; None where it
    must run instead (a register unknown, the slots unreadable)."""
    base = regs.get(plan.cfa_register)
    if base is None:
        return None
    cfa = (base + plan.cfa_offset) & MASK64
    try:
        data = read((cfa + plan.low) & MASK64, plan.high - plan.low)
    except TargetError:
        return None
    if len(data) != plan.high - plan.low:
        return None
    caller = {name: regs[name] for name in plan.same_value if name in regs}
    caller[plan.sp] = cfa
    from_bytes = int.from_bytes
    for targets, at in plan.saved:
        value = from_bytes(data[at : at + 8], "little")
        for name in targets:
            caller[name] = value
    return cfa, caller
