"""Emulate the instruction under a trap, so that moving past it needs no single-step.

Stepping over a trap the classic way (restore the byte, single-step, re-insert) costs a
second stop and opens a window in which other threads run through the missing trap.
For a few instructions that are provably simple (no flags, no faults beyond a stack or
frame write the program was about to make anyway) we compute their effect instead. The
set covers what compilers put at function entries and right after prologues.
Everything else returns None and is single-stepped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from aliceserver.debuggers.ptrace.binding import UserRegs

REG64 = ("rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
         "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15")  # fmt: skip

WriteMemory = Callable[[int, bytes], None]
ReadMemory = Callable[[int, int], bytes]


@dataclass(frozen=True, slots=True)
class Advance:
    """endbr64 and nops: only the pc moves."""

    length: int

    def apply(self, regs: UserRegs, read: ReadMemory, write: WriteMemory) -> None:
        regs.rip += self.length


@dataclass(frozen=True, slots=True)
class Push:
    register: str
    length: int

    def apply(self, regs: UserRegs, read: ReadMemory, write: WriteMemory) -> None:
        value = getattr(regs, self.register)  # read before rsp moves: `push rsp` pushes the old one
        new_sp = (regs.rsp - 8) & 0xFFFFFFFFFFFFFFFF
        write(new_sp, value.to_bytes(8, "little"))
        regs.rsp = new_sp
        regs.rip += self.length


@dataclass(frozen=True, slots=True)
class MoveRegister:
    """mov r64, r64."""

    target: str
    source: str
    length: int

    def apply(self, regs: UserRegs, read: ReadMemory, write: WriteMemory) -> None:
        setattr(regs, self.target, getattr(regs, self.source))
        regs.rip += self.length


@dataclass(frozen=True, slots=True)
class StoreToFrame:
    """mov [rbp+disp], r32/r64: how -O0 code spills its arguments after the prologue."""

    source: str
    displacement: int
    size: int
    length: int

    def apply(self, regs: UserRegs, read: ReadMemory, write: WriteMemory) -> None:
        value = getattr(regs, self.source) & ((1 << (8 * self.size)) - 1)
        write((regs.rbp + self.displacement) & 0xFFFFFFFFFFFFFFFF, value.to_bytes(self.size, "little"))
        regs.rip += self.length


@dataclass(frozen=True, slots=True)
class Load:
    """mov r32/r64, [rbp+disp] or [rip+disp32]: how -O0 code reads locals and globals.

    A 32-bit load zero-extends into the full register, as the CPU does.
    """

    target: str
    base: str  # "rbp" or "rip" (rip: relative to the next instruction)
    displacement: int
    size: int
    length: int

    def apply(self, regs: UserRegs, read: ReadMemory, write: WriteMemory) -> None:
        base = regs.rip + self.length if self.base == "rip" else getattr(regs, self.base)
        data = read((base + self.displacement) & 0xFFFFFFFFFFFFFFFF, self.size)
        setattr(regs, self.target, int.from_bytes(data, "little"))
        regs.rip += self.length


@dataclass(frozen=True, slots=True)
class Return:
    """ret / ret imm16 (also with a rep or bnd prefix): pop the pc. Function tracing traps
    every `ret` of a traced function, so this one saves a single-step per traced call."""

    pop: int  # bytes popped after the return address (ret imm16)
    length: int

    def apply(self, regs: UserRegs, read: ReadMemory, write: WriteMemory) -> None:
        target = int.from_bytes(read(regs.rsp, 8), "little")
        regs.rsp = (regs.rsp + 8 + self.pop) & 0xFFFFFFFFFFFFFFFF
        regs.rip = target


Plan = Advance | Push | MoveRegister | StoreToFrame | Load | Return

_ENDBR64 = b"\xf3\x0f\x1e\xfa"


def _nop_length(code: bytes) -> int | None:
    """Length of `90`, `66 90` or a multi-byte `[66..] [2e] 0f 1f /0` nop, else None."""
    at = 0
    while at < len(code) and code[at] == 0x66:
        at += 1
    if at < len(code) and code[at] == 0x90:
        return at + 1
    if at < len(code) and code[at] == 0x2E:
        at += 1
    if code[at : at + 2] != b"\x0f\x1f" or len(code) < at + 3:
        return None
    modrm = code[at + 2]
    mod, reg, rm = modrm >> 6, (modrm >> 3) & 7, modrm & 7
    if reg != 0:
        return None
    length = at + 3
    if mod != 3 and rm == 4:  # a SIB byte follows
        if len(code) < length + 1:
            return None
        base = code[length] & 7
        length += 1
        if mod == 0 and base == 5:
            length += 4
    elif mod == 0 and rm == 5:
        length += 4  # rip-relative disp32
    length += {1: 1, 2: 4}.get(mod, 0)
    return length if length <= len(code) else None


def plan_for(code: bytes) -> Plan | None:
    """The emulation of the instruction starting at code[0], or None if it must be stepped."""
    if code.startswith(_ENDBR64):
        return Advance(len(_ENDBR64))
    if not code:
        return None
    nop = _nop_length(code)
    if nop is not None:
        return Advance(nop)
    prefix = 1 if code[0] in (0xF2, 0xF3) else 0  # bnd ret, repz ret
    if code[prefix : prefix + 1] == b"\xc3":
        return Return(0, prefix + 1)
    if code[prefix : prefix + 1] == b"\xc2" and len(code) >= prefix + 3:
        return Return(int.from_bytes(code[prefix + 1 : prefix + 3], "little"), prefix + 3)
    rex = 0
    at = 0
    if 0x40 <= code[0] <= 0x4F:
        rex, at = code[0], 1
    if len(code) <= at:
        return None
    opcode = code[at]
    rex_w, rex_r, rex_b = bool(rex & 8), (rex & 4) << 1, (rex & 1) << 3
    if 0x50 <= opcode <= 0x57 and not rex_w and not (rex & 0b0110):
        return Push(REG64[(opcode - 0x50) | rex_b], at + 1)
    if opcode in (0x89, 0x8B) and len(code) > at + 1:
        modrm = code[at + 1]
        mod, reg, rm = modrm >> 6, ((modrm >> 3) & 7) | rex_r, (modrm & 7) | rex_b
        if mod == 0b11:
            if not rex_w:
                return None  # a 32-bit register move zero-extends: simple, but rare here
            if opcode == 0x89:
                return MoveRegister(REG64[rm], REG64[reg], at + 2)
            return MoveRegister(REG64[reg], REG64[rm], at + 2)
        return _memory_move(code, at, opcode, modrm, REG64[reg], 8 if rex_w else 4, bool(rex & 1))
    return None


def _memory_move(code: bytes, at: int, opcode: int, modrm: int, register: str, size: int, rex_b: bool) -> Plan | None:
    """mov between a register and [rbp+disp8/32] (store or load), or a load from [rip+disp32]."""
    mod, rm = modrm >> 6, modrm & 7
    if rm != 0b101 or rex_b:
        return None  # other bases (r13 with REX.B, SIB forms) are stepped
    width = {0b00: 4, 0b01: 1, 0b10: 4}.get(mod)
    if width is None or len(code) < at + 2 + width:
        return None
    displacement = int.from_bytes(code[at + 2 : at + 2 + width], "little", signed=True)
    length = at + 2 + width
    if mod == 0b00:  # [rip + disp32]
        return Load(register, "rip", displacement, size, length) if opcode == 0x8B else None
    if opcode == 0x89:
        return StoreToFrame(register, displacement, size, length)
    return Load(register, "rbp", displacement, size, length)
