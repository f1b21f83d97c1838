"""Condition IR (symbols/dwarf/expr/condition_ir.py) to x86-64 machine code.

The code runs inside a trampoline, in the program: RBX points at the block of registers the
trampoline saved (each register at the offset the caller gives), program memory is read by
plain loads. It leaves the value in RAX (a 64-bit pattern, as the closure back end's number
wraps to 64 bits) and ECX = 0, or ECX = 1 when it cannot decide (a division by zero, where
the closures raise): the trampoline then lets the general evaluator judge. It clobbers RAX,
RCX, RDX and RSI (RSI keeps the stack pointer, so that the undecided path may leave from any
depth of pushed operands) and calls nothing.

A load from memory that is not mapped faults in the program, inside the code: the engine
knows the code's range and judges such a fault with the general evaluator.
"""

from __future__ import annotations

from collections.abc import Mapping

from aliceserver.debuggers.ptrace.patches.emitter import (
    CC,
    RAX,
    RBX,
    RCX,
    RDX,
    RSI,
    RSP,
    Assembler,
    Label,
)
from aliceserver.debuggers.symbols.dwarf.expr import condition_ir as ir

_SIGNED_CC = {"==": "e", "!=": "ne", "<": "l", ">": "g", "<=": "le", ">=": "ge"}
_UNSIGNED_CC = {"==": "e", "!=": "ne", "<": "b", ">": "a", "<=": "be", ">=": "ae"}
# What `a OP b` is when a < b for sure (a negative signed side against an unsigned one).
_WHEN_LESS = {"==": 0, "!=": 1, "<": 1, ">": 0, "<=": 1, ">=": 0}
_WHEN_GREATER = {"==": 0, "!=": 1, "<": 0, ">": 1, "<=": 0, ">=": 1}
_BITWISE = {"+": b"\x03", "-": b"\x2b", "&": b"\x23", "|": b"\x0b", "^": b"\x33"}
# movzx/movsx forms by size: (zero-extending opcode, wide?), (sign-extending opcode, wide?)
_EXTEND = {
    1: ((b"\x0f\xb6", False), (b"\x0f\xbe", True)),
    2: ((b"\x0f\xb7", False), (b"\x0f\xbf", True)),
    4: ((b"\x8b", False), (b"\x63", True)),
    8: ((b"\x8b", True), (b"\x8b", True)),
}


class Uncompilable(Exception):
    """The IR reads something the saved block does not hold (a register not saved)."""


def compile_code(node: ir.Node, register_offsets: Mapping[str, int]) -> bytes:
    """Machine code computing `node` (see the module's contract); falls through at its end."""
    gen = _Generator(register_offsets)
    gen.asm.rr(b"\x8b", RSI, RSP)  # mov rsi, rsp
    gen.value(node)
    done = Label()
    gen.asm.rr(b"\x33", RCX, RCX, wide=False)  # xor ecx, ecx: decided
    gen.asm.jmp(done)
    gen.asm.bind(gen.undecided)
    gen.asm.rr(b"\x8b", RSP, RSI)  # mov rsp, rsi: drop the operands pushed so far
    gen.asm.mov_imm(RCX, 1)
    gen.asm.bind(done)
    return gen.asm.finish()


class _Generator:
    def __init__(self, register_offsets: Mapping[str, int]) -> None:
        self.asm = Assembler()
        self.offsets = register_offsets
        self.undecided = Label()

    def value(self, node: ir.Node) -> None:
        """Code leaving `node`'s value in RAX."""
        asm = self.asm
        if isinstance(node, ir.Const):
            asm.mov_imm(RAX, node.value)
        elif isinstance(node, ir.Register):
            if node.name not in self.offsets:
                raise Uncompilable(f"register {node.name} is not saved")
            asm.mem(b"\x8b", RAX, RBX, self.offsets[node.name])
        elif isinstance(node, ir.Offset):
            self.value(node.base)
            self.add_constant(node.offset)
        elif isinstance(node, ir.Load):
            self.value(node.address)
            opcode, wide = _EXTEND[node.size][node.signed]
            asm.mem(opcode, RAX, RAX, 0, wide)
        elif isinstance(node, ir.Convert):
            self.value(node.operand)
            self.convert(node.bits, node.signed)
        elif isinstance(node, ir.Truth):
            self.value(node.operand)
            asm.rr(b"\x85", RAX, RAX)  # test rax, rax
            self.set_flag("e" if node.negate else "ne")
        elif isinstance(node, ir.Unary):
            self.value(node.operand)
            asm.rr(b"\xf7", 3 if node.op == "-" else 2, RAX)  # neg / not rax
            self.convert(node.bits, node.signed)
        elif isinstance(node, ir.Binary):
            self.binary(node)
        elif isinstance(node, ir.Compare):
            self.compare(node)
        else:
            self.logical(node)

    def operands(self, left: ir.Node, right: ir.Node) -> None:
        """Left in RAX, right in RCX."""
        self.value(left)
        self.asm.push(RAX)
        self.value(right)
        self.asm.rr(b"\x8b", RCX, RAX)  # mov rcx, rax
        self.asm.pop(RAX)

    def add_constant(self, offset: int) -> None:
        offset &= (1 << 64) - 1
        signed = offset - (1 << 64) if offset >> 63 else offset
        if -(1 << 31) <= signed < 1 << 31:
            self.asm.emit(0x48, 0x05, (signed & 0xFFFFFFFF).to_bytes(4, "little"))  # add rax, imm32
        else:
            self.asm.mov_imm(RCX, offset)
            self.asm.rr(b"\x03", RAX, RCX)

    def convert(self, bits: int, signed: bool) -> None:
        if bits == 64:
            return  # the pattern is the same; only its reading differs
        opcode, wide = _EXTEND[bits // 8][signed]
        self.asm.rr(opcode, RAX, RAX, wide)

    def set_flag(self, cc: str) -> None:
        self.asm.emit(0x0F, 0x90 | CC[cc], 0xC0)  # setcc al
        self.asm.rr(b"\x0f\xb6", RAX, RAX, wide=False)  # movzx eax, al

    def binary(self, node: ir.Binary) -> None:
        asm = self.asm
        self.operands(node.left, node.right)
        if node.op in _BITWISE:
            asm.rr(_BITWISE[node.op], RAX, RCX)
        elif node.op == "*":
            asm.rr(b"\x0f\xaf", RAX, RCX)  # imul rax, rcx: the low 64 bits either way
        elif node.op in ("/", "%"):
            self.divide(node.op == "%", node.signed)
        else:
            self.shift(node.op == "<<", node.signed, node.bits)
        self.convert(node.bits, node.signed)

    def divide(self, remainder: bool, signed: bool) -> None:
        asm, done = self.asm, Label()
        asm.rr(b"\x85", RCX, RCX)
        asm.jcc("e", self.undecided)  # the closures raise: the general evaluator says why
        if signed:
            divide = Label()
            asm.emit(0x48, 0x83, 0xF9, 0xFF)  # cmp rcx, -1: INT64_MIN / -1 would fault
            asm.jcc("ne", divide)
            if remainder:
                asm.rr(b"\x33", RAX, RAX, wide=False)  # a % -1 == 0
            else:
                asm.rr(b"\xf7", 3, RAX)  # a / -1 == -a, wrapped
            asm.jmp(done)
            asm.bind(divide)
            asm.emit(0x48, 0x99)  # cqo
            asm.rr(b"\xf7", 7, RCX)  # idiv rcx
        else:
            asm.rr(b"\x33", RDX, RDX, wide=False)  # xor edx, edx
            asm.rr(b"\xf7", 6, RCX)  # div rcx
        if remainder:
            asm.rr(b"\x8b", RAX, RDX)
        asm.bind(done)

    def shift(self, left: bool, signed: bool, bits: int) -> None:
        # As gdb (and the general evaluator): a count past the result's width, or negative
        # (read as huge), gives 0; within it the CPU's 64-bit shift of the operand is exact.
        asm, in_range, done = self.asm, Label(), Label()
        asm.emit(0x48, 0x83, 0xF9, bits - 1)  # cmp rcx, bits - 1
        asm.jcc("be", in_range)
        asm.rr(b"\x33", RAX, RAX, wide=False)  # xor eax, eax
        asm.jmp(done)
        asm.bind(in_range)
        asm.rr(b"\xd3", 4 if left else 7 if signed else 5, RAX)  # shl / sar / shr rax, cl
        asm.bind(done)

    def compare(self, node: ir.Compare) -> None:
        asm = self.asm
        self.operands(node.left, node.right)
        if node.left_signed == node.right_signed:
            asm.rr(b"\x3b", RAX, RCX)  # cmp rax, rcx
            self.set_flag((_SIGNED_CC if node.left_signed else _UNSIGNED_CC)[node.op])
            return
        # One side signed, the other unsigned: a negative signed side is the smaller one,
        # otherwise both are within the unsigned range.
        sure, done = Label(), Label()
        signed_side = RAX if node.left_signed else RCX
        asm.rr(b"\x85", signed_side, signed_side)
        asm.jcc("s", sure)
        asm.rr(b"\x3b", RAX, RCX)
        self.set_flag(_UNSIGNED_CC[node.op])
        asm.jmp(done)
        asm.bind(sure)
        asm.mov_imm(RAX, (_WHEN_LESS if node.left_signed else _WHEN_GREATER)[node.op])
        asm.bind(done)

    def logical(self, node: ir.Logical) -> None:
        asm, short, done = self.asm, Label(), Label()
        self.value(node.left)
        asm.rr(b"\x85", RAX, RAX)
        asm.jcc("e" if node.op == "&&" else "ne", short)
        self.value(node.right)
        asm.rr(b"\x85", RAX, RAX)
        self.set_flag("ne")
        asm.jmp(done)
        asm.bind(short)
        asm.mov_imm(RAX, 0 if node.op == "&&" else 1)
        asm.bind(done)
