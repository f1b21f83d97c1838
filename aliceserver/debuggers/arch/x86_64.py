"""x86-64 (gdb's `i386:x86-64`): System V psABI register numbers, int3, rbp chains, the
rt_sigframe of Linux and the SysV return-value classes."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from aliceserver.debuggers.arch.base import (
    Architecture,
    CallerRegisters,
    Lookup,
    ReadMemory,
    ReturnLocation,
)
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.types import Type

# System V psABI, figure 3.36 -> gdb names.
DWARF_REGISTERS: Mapping[int, str] = MappingProxyType({
    0: "rax", 1: "rdx", 2: "rcx", 3: "rbx", 4: "rsi", 5: "rdi", 6: "rbp", 7: "rsp",
    8: "r8", 9: "r9", 10: "r10", 11: "r11", 12: "r12", 13: "r13", 14: "r14", 15: "r15",
    16: "rip", 49: "eflags", 50: "es", 51: "cs", 52: "ss", 53: "ds", 54: "fs", 55: "gs",
    58: "fs_base", 59: "gs_base",
})  # fmt: skip
# Preserved across calls (psABI), plus the per-thread segment state no call changes.
CARRIED = ("rbx", "rbp", "r12", "r13", "r14", "r15", "cs", "ss", "ds", "es", "fs", "gs",
           "fs_base", "gs_base")  # fmt: skip
# gdb's x86-64 register numbering: `info registers` and `info frame`'s saved registers.
GDB_ORDER = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11",
             "r12", "r13", "r14", "r15", "rip", "eflags", "cs", "ss", "ds", "es", "fs", "gs",
             "fs_base", "gs_base")  # fmt: skip

# libc's __restore_rt: `mov rax, 15 (rt_sigreturn); syscall`.
SIGRETURN_CODE = bytes.fromhex("48c7c00f0000000f05")
# rt_sigframe: after the popped return address, rsp points at the struct ucontext; its
# uc_mcontext.gregs start at offset 40 in REG_R8..REG_CR2 order (<sys/ucontext.h>).
UCONTEXT_GREGS = 40
GREG_NAMES = ("r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rdi", "rsi", "rbp",
              "rbx", "rdx", "rax", "rcx", "rsp", "rip", "eflags")  # fmt: skip


class X86_64(Architecture):
    name = "i386:x86-64"
    e_machine = 62
    elf_machine_name = "EM_X86_64"
    pointer_size = 8
    byte_order = "little"
    dwarf_registers = DWARF_REGISTERS
    pc, sp, fp, link = "rip", "rsp", "rbp", None
    return_column = 16
    same_value = CARRIED
    breakpoint = b"\xcc"
    breakpoint_kind = 1
    pc_after_trap = 1
    capstone_arch, capstone_mode = "CS_ARCH_X86", "CS_MODE_64"
    syntaxes = ("intel", "att")
    gdb_registers = GDB_ORDER

    def entry_cfa(self) -> tuple[str, int]:
        return "rsp", 8  # the call pushed the return address

    def frame_record_step(
        self, registers: Mapping[str, int], read: ReadMemory, lookup: Lookup, *, first: bool
    ) -> CallerRegisters | None:
        from aliceserver.debuggers.symbols.fpunwind import fp_backtrace

        pc, sp, fp = registers.get("rip"), registers.get("rsp"), registers.get("rbp")
        if pc is None or sp is None or fp is None:
            return None
        if first:
            # Frame 0 may be in a prologue or at its `ret`: fpunwind knows those cases.
            found = fp_backtrace(read, pc, sp, fp, lookup, limit=2)
            if len(found) < 2:
                return None
            caller_pc, caller_sp, caller_fp = found[1].pc, found[1].sp, found[1].fp
        else:
            # A caller's rbp is only a frame pointer if it lies in its own stack, above its sp.
            if fp == 0 or fp % 8 or fp < sp:
                return None
            caller_pc, caller_fp = self.read_pointer(read, fp + 8), self.read_pointer(read, fp)
            caller_sp = fp + 16
        caller = {name: registers[name] for name in CARRIED if name in registers}
        caller.update(rip=caller_pc, rsp=caller_sp, rbp=caller_fp)
        return CallerRegisters(caller_sp, caller)

    def is_signal_trampoline(self, read: ReadMemory, pc: int) -> bool:
        try:
            return read(pc, len(SIGRETURN_CODE)) == SIGRETURN_CODE
        except TargetError:
            return False

    def signal_frame_step(self, registers: Mapping[str, int], read: ReadMemory) -> CallerRegisters:
        sp = registers.get("rsp")
        if sp is None:
            raise TargetError("no stack pointer in a signal frame")
        data = read(sp + UCONTEXT_GREGS, 8 * len(GREG_NAMES))
        caller = {name: registers[name] for name in CARRIED if name in registers}
        for i, name in enumerate(GREG_NAMES):
            caller[name] = int.from_bytes(data[8 * i : 8 * i + 8], "little")
        return CallerRegisters(caller["rsp"], caller)

    def return_location(self, value_type: Type) -> ReturnLocation:
        from aliceserver.debuggers.arch.sysv import return_location

        return return_location(value_type)
