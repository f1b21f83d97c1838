"""Entry values by a plan made once per call value: the usual gcc forms read without the
evaluator or entrychain's loop.

1,000 threads parked in libc's futex wait each ask for the same entry values at the same
pcs: `private` is DW_OP_entry_value(r8) in frame 0, whose caller's call value is itself
DW_OP_entry_value(r8), whose caller's is DW_OP_breg13 0. entrychain.py resolved each link
by evaluating the call value (a _Needs exception, the link below resolved, the call value
evaluated again), about a third of the first stop's -thread-info. What a call value gives
depends on its bytes and the frames alone: its plan (a constant, a caller's register plus
an offset, or that caller's own entry value of a register) is kept by its bytes, and each
thread's frames are read through it. Any other form, a register not available, a chain
longer than _DEPTH or a typed value is left to entrychain.py (its answer, errors and gdb's
expression depth included), so a plan answers only where that would give the same value.
"""

from __future__ import annotations

from aliceserver.debuggers.symbols.dwarf.callsites import (
    CallValue,
    EntryRequest,
    EntrySlot,
    NoEntryValue,
    call_value,
    caller_of,
    register_of,
)
from aliceserver.debuggers.symbols.dwarf.locexpr import MASK64, EvaluationError, ImplicitLoc
from aliceserver.debuggers.symbols.dwarf.rawread import sleb, uleb

_DEPTH = 8  # links followed by plans; a longer chain goes to entrychain.py from its start
_BREG0, _BREG31, _ENTRY_VALUES, _STACK_VALUE = 0x70, 0x8F, (0xA3, 0xF3), 0x9F

# A call value's plan: ("const", value, 0), ("breg", regno, offset), ("entry", regno, 0)
Plan = tuple[str, int, int] | None
_MAX_PLANS = 4096
_plans: dict[bytes, Plan] = {}  # by the call value's bytes (DW_OP_stack_value after them)


def planned(request: EntryRequest, depth: int = 0) -> int | None:
    """The entry value `request` asks for where its call value's plan gives it (an int);
    None where entrychain.py must resolve it."""
    if depth >= _DEPTH:
        return None
    caller = caller_of(request.ctx)
    if caller is None:
        return None
    try:
        known = call_value(
            request.ctx, caller, request.function_pc, EntrySlot(regno=request.regno), request.callee
        )
    except EvaluationError:
        return None
    plan = _plan_of(known)
    if plan is None:
        return None
    if plan[0] == "const":
        return plan[1]
    ctx = caller.ctx
    if plan[0] == "breg":
        value = ctx.register(plan[1])
        return None if value is None else ((value & MASK64) + plan[2]) & MASK64
    start = caller.symbols.site_function_start(ctx)  # the caller's own entry values ask for it
    if start is None:
        return None
    return planned(EntryRequest(ctx, start, plan[1], caller.symbols), depth + 1)


def _plan_of(known: CallValue) -> Plan:
    literal = known[2]
    if isinstance(literal, ImplicitLoc):
        if literal.typed is not None:
            return None
        return ("const", int.from_bytes(literal.data[:8], "little"), 0)
    expr = known[1]
    if expr in _plans:
        return _plans[expr]
    if len(_plans) >= _MAX_PLANS:
        _plans.clear()
    found = _plans[expr] = _parse(expr)
    return found


def _parse(expr: bytes) -> Plan:
    """DW_OP_bregN off or DW_OP_entry_value(DW_OP_regN), then DW_OP_stack_value, alone."""
    if len(expr) < 2 or expr[-1] != _STACK_VALUE:
        return None
    body, op = expr[:-1], expr[0]
    try:
        if _BREG0 <= op <= _BREG31:
            offset, end = sleb(body, 1)
            return ("breg", op - _BREG0, offset) if end == len(body) else None
        if op in _ENTRY_VALUES:
            size, start = uleb(body, 1)
            regno = register_of(body[start : start + size])
            return ("entry", regno, 0) if regno is not None and start + size == len(body) else None
    except (IndexError, ValueError, NoEntryValue):
        return None
    return None
