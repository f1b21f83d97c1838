"""Helpers of CallRecorder (patched_calltrace.py): every thread held for a patch change,
a site's plan (refused as the breakpoints' are under CET shadow stacks), a function's
branch targets, and whether a patch area is still mapped."""

from __future__ import annotations

from typing import Any

from aliceserver.debuggers.ptrace.inferior import Inferior
from aliceserver.debuggers.ptrace.patches.area import PatchArea
from aliceserver.debuggers.ptrace.patches.inject import all_stopped
from aliceserver.debuggers.ptrace.patches.shadow_stack import moved_call_refusal
from aliceserver.debuggers.ptrace.patches.sites import Refusal, SitePlan, plan_site


class Held:
    """Every thread of a running program stopped for a patch change, and let go after it:
    by the tracer thread when the command came by its wake-up (a thread is parked), else
    here (the command was queued before the tracer waited: nothing else would resume them)."""

    def __init__(self, inferior: Inferior) -> None:
        self._inferior = inferior
        self._held: list[int] = []
        self._woken = False

    def __enter__(self) -> None:
        inferior = self._inferior
        if not all_stopped(inferior):
            self._woken = bool(inferior.parked)
            running = [t.tid for t in inferior.threads.values() if t.running and not t.gone]
            inferior._stop_others(0)
            waiting = {stop.thread_id for stop in inferior.pending}
            self._held = [tid for tid in running if tid not in waiting]

    def __exit__(self, *exc: object) -> None:
        inferior = self._inferior
        for tid in self._held:
            t = inferior.threads.get(tid)
            if t is not None and not (t.gone or t.running):
                inferior.parked.append(t)
        if self._held and not self._woken:
            inferior.unpark()
        self._held.clear()


def planned(code: bytes, start: int, site: int, shadow_stack: bool, near: int | None = None) -> SitePlan | Refusal:
    """plan_site's plan for a jump at `site`, refused where it would move a call out of the
    program's code while the program runs with a shadow stack (patches/shadow_stack.py):
    the callee's ret would kill it. The entry or return keeps its trap, saying why."""
    plan = plan_site(code, start, site, displaced_near=near)
    if isinstance(plan, Refusal):
        return plan
    return moved_call_refusal(plan, shadow_stack) or plan


def decoder(detail: bool) -> Any:
    # Imported here: capstone costs 7 MB and 60 ms, and a session may record no call.
    import capstone  # type: ignore[import-untyped, unused-ignore]

    cs = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    cs.detail = detail
    return cs


def branch_targets(code: bytes, start: int) -> tuple[set[int], bool]:
    """The direct branch targets in the function, and whether it has an indirect jump."""
    import capstone.x86  # type: ignore[import-untyped, unused-ignore]

    targets: set[int] = set()
    indirect = False
    for insn in decoder(True).disasm(code, start):
        if insn.group(capstone.CS_GRP_JUMP):
            operand = insn.operands[0] if len(insn.operands) == 1 else None
            if operand is not None and operand.type == capstone.x86.X86_OP_IMM:
                targets.add(operand.imm & ((1 << 64) - 1))
            else:
                indirect = True
    return targets, indirect


def still_mapped(area: PatchArea) -> bool:
    """Whether the program still maps the area's code (an exec takes it away)."""
    try:
        with open(f"/proc/{area.inferior.pid}/maps", encoding="ascii", errors="replace") as maps:
            return any(line.startswith(f"{area.code_address:x}-") for line in maps)
    except OSError:
        return False
