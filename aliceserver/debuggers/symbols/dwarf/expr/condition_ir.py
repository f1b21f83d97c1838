"""The small typed IR a breakpoint condition is analysed into (compiled.py), and its closure
back end.

A node stands for one integer: the number as convert.to_number gives it for the node's C
type. Every type the analysis accepts is at most 64 bits wide, so a value is also a 64-bit
pattern (its two's complement); nodes say how to read that pattern where it matters (the
`signed` of Load, Convert, Binary and each side of a Compare). Back ends: Python closures
over a register object and a memory reader (to_closure, here), and x86-64 machine code
reading a saved register block (ptrace/patches/codegen.py).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError

MASK64 = (1 << 64) - 1

# Closures take the thread's register object: gdb-named attributes (the engine's UserRegs).
Getter = Callable[[Any], int]
ReadMemory = Callable[[int, int], bytes]


@dataclass(frozen=True, slots=True)
class Const:
    value: int


@dataclass(frozen=True, slots=True)
class Register:
    """A whole 64-bit register (user_regs_struct name), unsigned."""

    name: str


@dataclass(frozen=True, slots=True)
class Offset:
    """An address: base + offset, wrapped to 64 bits (a frame slot, a struct member)."""

    base: Node
    offset: int


@dataclass(frozen=True, slots=True)
class Load:
    """`size` bytes of program memory at `address`, little-endian."""

    address: Node
    size: int  # 1, 2, 4 or 8
    signed: bool


@dataclass(frozen=True, slots=True)
class Convert:
    """The operand wrapped to `bits` (8, 16, 32 or 64), the C conversion to an integer type."""

    operand: Node
    bits: int
    signed: bool


@dataclass(frozen=True, slots=True)
class Truth:
    """1 if the operand is not zero, else 0 (`!!x`, a conversion to bool)."""

    operand: Node
    negate: bool = False  # `!x`: 1 if it is zero


@dataclass(frozen=True, slots=True)
class Unary:
    """`-x` or `~x`, the result converted to the promoted type (bits, signed)."""

    op: str
    operand: Node
    bits: int
    signed: bool


@dataclass(frozen=True, slots=True)
class Binary:
    """An arithmetic, bitwise or shift operator over operands already converted to the
    common type (a shift's count keeps its own value); the result converted to
    (bits, signed). `/` and `%` by zero cannot be decided here."""

    op: str  # + - * / % & | ^ << >>
    left: Node
    right: Node
    bits: int
    signed: bool


@dataclass(frozen=True, slots=True)
class Compare:
    """1 or 0. Each side is read as its own type's number (a pointer against `-1`)."""

    op: str  # == != < > <= >=
    left: Node
    right: Node
    left_signed: bool
    right_signed: bool


@dataclass(frozen=True, slots=True)
class Logical:
    """`&&` or `||`, short-circuit, 1 or 0."""

    op: str
    left: Node
    right: Node


Node: TypeAlias = (
    Const | Register | Offset | Load | Convert | Truth | Unary | Binary | Compare | Logical
)

COMPARE: dict[str, Callable[[int, int], bool]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt,
    ">": operator.gt, "<=": operator.le, ">=": operator.ge,
}  # fmt: skip


def wrap(number: int, bits: int, signed: bool) -> int:
    """`number` converted to a `bits`-wide integer type."""
    mask = (1 << bits) - 1
    if signed:
        half = 1 << (bits - 1)
        return ((number + half) & mask) - half
    return number & mask


def divide(a: int, b: int) -> int:
    if b == 0:
        raise EvaluationError("Division by zero")
    return abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C truncates toward zero


def _shift_left(a: int, b: int) -> int:
    return a << b  # the count checked by to_closure


def _shift_right(a: int, b: int) -> int:
    return a >> b


# operators.apply for integers.
ARITH: dict[str, Callable[[int, int], int]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul,
    "&": operator.and_, "|": operator.or_, "^": operator.xor,
    "/": divide, "%": lambda a, b: a - divide(a, b) * b,
    "<<": _shift_left, ">>": _shift_right,
}  # fmt: skip


def to_closure(node: Node, read: ReadMemory) -> Getter:
    """A closure computing `node` from a register object, reading memory with `read`."""
    if isinstance(node, Const):
        const = node.value
        return lambda regs: const
    if isinstance(node, Register):
        return operator.attrgetter(node.name)
    if isinstance(node, Offset):
        return _offset(node, read)
    if isinstance(node, Load):
        address, size, signed = to_closure(node.address, read), node.size, node.signed
        from_bytes = int.from_bytes
        return lambda regs: from_bytes(read(address(regs), size), "little", signed=signed)
    if isinstance(node, Convert):
        return _convert(to_closure(node.operand, read), node.bits, node.signed)
    if isinstance(node, Truth):
        value = to_closure(node.operand, read)
        if node.negate:
            return lambda regs: 1 if value(regs) == 0 else 0
        return lambda regs: 1 if value(regs) else 0
    if isinstance(node, Unary):
        value, bits, signed = to_closure(node.operand, read), node.bits, node.signed
        if node.op == "-":
            return lambda regs: wrap(-value(regs), bits, signed)
        return lambda regs: wrap(~value(regs), bits, signed)
    if isinstance(node, Binary):
        a, b = to_closure(node.left, read), to_closure(node.right, read)
        apply, bits, signed = ARITH[node.op], node.bits, node.signed
        if node.op in ("<<", ">>"):  # gdb: a count negative or past the width gives zero

            def shifted(regs: Any) -> int:
                value, count = a(regs), b(regs)  # both evaluated (either may raise)
                return wrap(apply(value, count), bits, signed) if 0 <= count < bits else 0

            return shifted
        return lambda regs: wrap(apply(a(regs), b(regs)), bits, signed)
    if isinstance(node, Compare):
        a, b, compare = to_closure(node.left, read), to_closure(node.right, read), COMPARE[node.op]
        return lambda regs: 1 if compare(a(regs), b(regs)) else 0
    a, b = to_closure(node.left, read), to_closure(node.right, read)
    if node.op == "&&":
        return lambda regs: 1 if a(regs) != 0 and b(regs) != 0 else 0
    return lambda regs: 1 if a(regs) != 0 or b(regs) != 0 else 0


def _offset(node: Offset, read: ReadMemory) -> Getter:
    offset = node.offset
    if isinstance(node.base, Const):
        fixed = (node.base.value + offset) & MASK64
        return lambda regs: fixed
    if isinstance(node.base, Register):  # the common frame slot: one attribute read
        get = operator.attrgetter(node.base.name)
        return lambda regs: (get(regs) + offset) & MASK64
    start = to_closure(node.base, read)
    return lambda regs: (start(regs) + offset) & MASK64


def _convert(value: Getter, bits: int, signed: bool) -> Getter:
    mask, half = (1 << bits) - 1, 1 << (bits - 1)
    if signed:
        return lambda regs: ((value(regs) + half) & mask) - half
    return lambda regs: value(regs) & mask
