"""Where a signal trampoline frame (gdb's `<signal handler called>`) keeps the registers of
the frame the signal interrupted: the kernel's sigcontext on the stack, not CFI slots of
a function. gdb's `info frame` there lists them as "Saved registers" and says where the
interrupted stack pointer is ("Previous frame's sp at ADDR")."""

from __future__ import annotations

from collections.abc import Mapping

from aliceserver.debuggers.arch import x86_64
from aliceserver.debuggers.arch.base import Architecture


def signal_frame_slots(arch: Architecture, registers: Mapping[str, int]) -> list[tuple[str, int]]:
    """The sigcontext slots of the trampoline frame whose registers are `registers`, in
    gdb's register order; the stack pointer's among them. gdb lists those glibc's CFI for
    __restore_rt describes: the general registers and rip, not eflags. Empty where the
    layout is not known here (aarch64: gdb reads its own tramp frame there)."""
    sp = registers.get(arch.sp)
    if arch.name != x86_64.X86_64.name or sp is None:
        return []
    start = sp + x86_64.UCONTEXT_GREGS  # after the popped return address: the ucontext
    slots = {name: start + 8 * i for i, name in enumerate(x86_64.GREG_NAMES) if name != "eflags"}
    return [(name, slots[name]) for name in arch.gdb_registers if name in slots]
