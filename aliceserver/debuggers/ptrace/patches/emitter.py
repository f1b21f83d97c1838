"""A small x86-64 machine-code emitter: the few instruction forms the condition code and the
trampolines use, with labels and rel32 jumps resolved at the end.

Registers are numbered the hardware way (RAX=0 ... R15=15). Every jump is a rel32 form, so
an instruction's size never depends on where its label lands.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI = range(8)
R8, R9, R10, R11, R12, R13, R14, R15 = range(8, 16)

# Condition codes (the low nibble of Jcc / SETcc).
CC = {
    "b": 0x2, "ae": 0x3, "e": 0x4, "ne": 0x5, "be": 0x6, "a": 0x7,
    "s": 0x8, "ns": 0x9, "l": 0xC, "ge": 0xD, "le": 0xE, "g": 0xF,
}  # fmt: skip


class Label:
    """A place in the code, bound once."""

    __slots__ = ("position",)

    def __init__(self) -> None:
        self.position: int | None = None


@dataclass
class Assembler:
    code: bytearray = field(default_factory=bytearray)
    _fixups: list[tuple[int, Label]] = field(default_factory=list)

    def emit(self, *parts: int | bytes) -> None:
        for part in parts:
            if isinstance(part, int):
                self.code.append(part)
            else:
                self.code += part

    def bind(self, label: Label) -> None:
        assert label.position is None, "a label is bound once"
        label.position = len(self.code)

    def finish(self) -> bytes:
        for at, label in self._fixups:
            assert label.position is not None, "a jump to a label never bound"
            self.code[at : at + 4] = struct.pack("<i", label.position - (at + 4))
        self._fixups.clear()
        return bytes(self.code)

    # --- control flow --------------------------------------------------------------------
    def jmp(self, label: Label) -> None:
        self.emit(0xE9)
        self._rel32(label)

    def jcc(self, cc: str, label: Label) -> None:
        self.emit(0x0F, 0x80 | CC[cc])
        self._rel32(label)

    def _rel32(self, label: Label) -> None:
        self._fixups.append((len(self.code), label))
        self.emit(bytes(4))

    def jmp_to(self, here: int, target: int) -> None:
        """`jmp rel32` to an absolute address, the code starting at `here`."""
        end = here + len(self.code) + 5
        self.emit(0xE9, struct.pack("<i", target - end))

    # --- register forms ------------------------------------------------------------------
    def rr(self, opcode: bytes, reg: int, rm: int, wide: bool = True) -> None:
        """An instruction with a register-direct ModRM: `opcode reg, rm` (Intel's order)."""
        rex = (0x48 if wide else 0x40) | (reg >> 3) << 2 | rm >> 3
        if rex != 0x40:
            self.emit(rex)
        self.emit(opcode, 0xC0 | (reg & 7) << 3 | (rm & 7))

    def mem(self, opcode: bytes, reg: int, base: int, disp: int, wide: bool = True) -> None:
        """`opcode reg, [base + disp32]` (base not RSP/R12 unless disp form allows)."""
        rex = (0x48 if wide else 0x40) | (reg >> 3) << 2 | base >> 3
        if rex != 0x40:
            self.emit(rex)
        self.emit(opcode, 0x80 | (reg & 7) << 3 | (base & 7))
        if base & 7 == RSP:
            self.emit(0x24)  # SIB: no index
        self.emit(struct.pack("<i", disp))

    def mov_imm(self, reg: int, value: int) -> None:
        """reg = value (a 64-bit pattern), in the shortest of the three forms."""
        value &= (1 << 64) - 1
        rex_b = reg >> 3
        if value < 1 << 32:
            if rex_b:
                self.emit(0x41)
            self.emit(0xB8 | (reg & 7), struct.pack("<I", value))  # zero-extends
        elif value >= (1 << 64) - (1 << 31):
            self.emit(0x48 | rex_b, 0xC7, 0xC0 | (reg & 7), struct.pack("<i", value - (1 << 64)))
        else:
            self.emit(0x48 | rex_b, 0xB8 | (reg & 7), struct.pack("<Q", value))

    def push(self, reg: int) -> None:
        if reg >= 8:
            self.emit(0x41)
        self.emit(0x50 | (reg & 7))

    def pop(self, reg: int) -> None:
        if reg >= 8:
            self.emit(0x41)
        self.emit(0x58 | (reg & 7))

    def lea_rsp(self, disp: int) -> None:
        """`lea rsp, [rsp + disp]`: moves the stack pointer without touching the flags."""
        if -128 <= disp < 128:
            self.emit(0x48, 0x8D, 0x64, 0x24, disp & 0xFF)
        else:
            self.emit(0x48, 0x8D, 0xA4, 0x24, struct.pack("<i", disp))
