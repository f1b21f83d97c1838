"""CET user shadow stacks and moved calls.

A call displaced into a trampoline is relocated as `push return address; jmp target`
(relocate.py): the return address goes on the stack but not on the shadow stack, so the
callee's `ret` finds the shadow stack unbalanced and the program dies of a control
protection fault. Where a thread of the process has its shadow stack on (Linux 6.6+ says
so in /proc/PID/task/TID/status, `x86_Thread_features: shstk ...`), a patch whose span
holds a call is refused and the breakpoint keeps its trap.
"""

from __future__ import annotations

import os

from aliceserver.debuggers.ptrace.patches.sites import Refusal, SitePlan

_FEATURES = "x86_Thread_features:"


def shadow_stack_on(pid: int, proc: str = "/proc") -> bool:
    """Whether some thread of process `pid` runs with a user shadow stack."""
    tasks = os.path.join(proc, str(pid), "task")
    try:
        tids = os.listdir(tasks)
    except OSError:
        return False
    for tid in tids:
        try:
            with open(os.path.join(tasks, tid, "status"), encoding="ascii", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            continue  # (the thread ended meanwhile)
        for line in lines:
            if line.startswith(_FEATURES) and "shstk" in line[len(_FEATURES) :].split():
                return True
    return False


def moved_call_refusal(plan: SitePlan, shadow_stack: bool) -> Refusal | None:
    """Why the patch `plan` may not go in a process with shadow stacks on, or None."""
    if not shadow_stack:
        return None
    call = next((i for i in plan.instructions if i.text.split(" ", 1)[0] in ("call", "callq")), None)
    if call is None:
        return None
    return Refusal(
        f"the call at {call.address:#x} ({call.text}) would be moved out of the program's "
        f"code, and the program's shadow stack (CET) would not hold its return address"
    )
