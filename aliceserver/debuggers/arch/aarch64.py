"""AArch64 (gdb's `aarch64`), little-endian Linux: AADWARF64 register numbers, `brk #0`,
x29/x30 frame records, the link register as the return address and the AAPCS64
return-value rules."""

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

# DWARF for the Arm 64-bit Architecture (AADWARF64), table 2 -> gdb names (features/aarch64-
# core.xml, aarch64-fpu.xml). 33-46 are ELR_mode, RA_SIGN_STATE, VG...: not tracked.
CPSR = 0x1000  # no DWARF number: one of ours, so that `$cpsr` reads it as any register
FPSR, FPCR = 0x1001, 0x1002  # the fpu feature's status and control words: ours too
DWARF_REGISTERS: Mapping[int, str] = MappingProxyType({
    **{n: f"x{n}" for n in range(31)}, 31: "sp", 32: "pc",
    **{64 + n: f"v{n}" for n in range(32)}, CPSR: "cpsr", FPSR: "fpsr", FPCR: "fpcr",
})  # fmt: skip
V0 = 64
# gdb's aarch64 unwinders leave a register no rule (or prologue) saves as it is in the
# callee: it shows an argument a caller keeps in x1 while its callee runs. So every general
# register but the pc, sp and x30 (the return address's) is carried out.
CARRIED = tuple(f"x{n}" for n in range(30))
# gdb's `info registers`: the core feature, then the fpu feature's status and control.
GDB_ORDER = (*(f"x{n}" for n in range(31)), "sp", "pc", "cpsr", "fpsr", "fpcr")

BRK_0 = (0xD4200000).to_bytes(4, "little")
_STP_FP_LR_PRE = 0xA9807BFD  # stp x29, x30, [sp, #imm]!  (imm7 in bits 15-21 masked out)
_STP_FP_LR_OFFSET = 0xA9007BFD  # stp x29, x30, [sp, #imm]
_STP_MASK = 0xFFC07FFF
_ADD_FP_SP = 0x910003FD  # add x29, sp, #imm  (mov x29, sp when imm is 0)
_ADD_MASK = 0xFFC003FF
_PROLOGUE_SCAN = 16  # instructions: where gcc and clang put the frame record


class AArch64(Architecture):
    name = "aarch64"
    e_machine = 183
    elf_machine_name = "EM_AARCH64"
    pointer_size = 8
    byte_order = "little"
    dwarf_registers = DWARF_REGISTERS
    pc, sp, fp, link = "pc", "sp", "x29", "x30"
    return_column = 30
    same_value = CARRIED
    breakpoint = BRK_0
    breakpoint_kind = 4
    pc_after_trap = 0  # brk leaves the pc on itself
    capstone_arch, capstone_mode = "CS_ARCH_ARM64", "CS_MODE_ARM"
    syntaxes = ("default",)
    gdb_registers = GDB_ORDER

    def entry_cfa(self) -> tuple[str, int]:
        return "sp", 0  # bl pushes nothing

    def entry_return_address(self, registers: Mapping[str, int], read: ReadMemory) -> int:
        return registers["x30"]

    def frame_record_step(
        self, registers: Mapping[str, int], read: ReadMemory, lookup: Lookup, *, first: bool
    ) -> CallerRegisters | None:
        pc, sp, fp = registers.get("pc"), registers.get("sp"), registers.get("x29")
        if pc is None or sp is None or fp is None:
            return None
        caller = {name: registers[name] for name in CARRIED if name in registers}
        if first:
            record = self._prologue_record(registers, read, lookup)
            if record is None:  # no record made yet (or a leaf): the caller is in x30
                link = registers.get("x30")
                if link is None:
                    return None
                caller.update(pc=link, sp=sp, x29=fp, x30=link)
                return CallerRegisters(sp, caller)
            if record != fp:  # `stp x29, x30` has run, `add x29, sp` not yet
                return self._through_record(caller, read, record)
        # A frame record lies in the frame's own stack, at or above its sp.
        if fp == 0 or fp % 16 or fp < sp:
            return None
        return self._through_record(caller, read, fp)

    def _through_record(
        self, caller: dict[str, int], read: ReadMemory, record: int
    ) -> CallerRegisters:
        # The record holds the caller's x29 and the return address; the caller's sp lies
        # at least past it (the prologue analysis that finds the frame size is CFI's job).
        caller_fp, link = self.read_pointer(read, record), self.read_pointer(read, record + 8)
        caller.update(pc=link, sp=record + 16, x29=caller_fp, x30=link)
        return CallerRegisters(record + 16, caller)

    def _prologue_record(
        self, registers: Mapping[str, int], read: ReadMemory, lookup: Lookup
    ) -> int | None:
        """Where frame 0's frame record is, by its prologue's instructions before the pc:
        None when no `stp x29, x30` has run."""
        pc, sp = registers["pc"], registers["sp"]
        symbol = lookup(pc)
        if symbol.name is None:
            return registers["x29"]  # no function known: trust the chain
        start = pc - symbol.offset
        count = min((pc - start) // 4, _PROLOGUE_SCAN)
        try:
            code = read(start, 4 * count) if count else b""
        except TargetError:
            return registers["x29"]
        record: int | None = None
        for index in range(count):
            word = int.from_bytes(code[4 * index : 4 * index + 4], "little")
            if word & _STP_MASK == _STP_FP_LR_PRE:
                record = 0  # at the new sp, wherever it is now
            elif word & _STP_MASK == _STP_FP_LR_OFFSET:
                record = _imm7(word)
            elif word & _ADD_MASK == _ADD_FP_SP and record is not None:
                return registers["x29"]
        return None if record is None else sp + record

    def return_location(self, value_type: Type) -> ReturnLocation:
        from aliceserver.debuggers.arch.aapcs64 import return_location

        return return_location(value_type)


_BRANCHES = ((0x14000000, 0x7C000000), (0x54000000, 0xFF000010), (0x34000000, 0x7E000000),
             (0x36000000, 0x7E000000), (0xD6000000, 0xFE000000))  # b/bl, b.cond, cbz, tbz, br/blr/ret


def frame_register(code: bytes) -> str:
    """The register that holds a frame's base, by its prologue code run so far (`code`,
    from the function's start to the frame's pc): gdb's aarch64_analyze_prologue keeps
    the frame at x29 once `add x29, sp, #N` (mov x29, sp) ran before any branch, else at
    sp, and the base it gives (prev_sp - framesize) is that register's value."""
    for index in range(0, len(code) - 3, 4):
        word = int.from_bytes(code[index : index + 4], "little")
        if any(word & mask == value for value, mask in _BRANCHES):
            break
        if word & _ADD_MASK == _ADD_FP_SP:
            return "x29"
    return "sp"


def _imm7(word: int) -> int:
    value = (word >> 15) & 0x7F
    return (value - 0x80 if value & 0x40 else value) * 8
