"""Breakpoint conditions compiled, for one pc of one loaded module, into Python closures.

At a given pc the scope, each variable's location expression and type, the frame base and
the CFA rule are all fixed, so `i == -1` comes down to "read 4 bytes at rsp + 16 - 20,
compare with -1": no scope walk, no Value objects. The closures read the registers and
memory afresh at every call (values change between hits; each thread has its own frame).

Covered: integer, bool, enum and pointer variables (locals and parameters at a register +
offset or in a register, globals and statics at a fixed address, members of structs in
memory, through `.` or `->`), integer and character literals, casts to built-in integer
types, unary `- + ~ !`, arithmetic, shifts, bitwise operators, comparisons, `&&` and `||`,
with the general evaluator's C semantics (evaluate.py, convert.py). For anything else
`compile_condition` answers None and the caller keeps the general evaluator, which also
judges every compiled closure that raises (and says what is wrong).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from aliceserver.debuggers.symbols.dwarf.expr import FrameSymbols, ast
from aliceserver.debuggers.symbols.dwarf.expr.convert import Builtins, common_type, promote
from aliceserver.debuggers.symbols.dwarf.locexpr import ByteReader, EvaluationError, MemoryLoc
from aliceserver.debuggers.symbols.dwarf.scopes import Variable, VarKind
from aliceserver.debuggers.symbols.dwarf.types import (
    BaseType,
    Encoding,
    EnumType,
    PointerType,
    StructType,
    Type,
    is_scalar_signed,
    strip,
)
from aliceserver.debuggers.symbols.dwarf.unwind import DWARF_REGISTERS

MASK64 = (1 << 64) - 1

# Closures take the thread's register object: gdb-named attributes (the engine's UserRegs).
Getter = Callable[[Any], int]
ReadMemory = Callable[[int, int], bytes]

_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt,
    ">": operator.gt, "<=": operator.le, ">=": operator.ge,
}  # fmt: skip
_NOT_NUMBERS = (Encoding.FLOAT, Encoding.COMPLEX)


@dataclass(frozen=True, slots=True)
class PcFrame:
    """What is fixed at one pc: the innermost frame's symbols there, and its CFA rule."""

    symbols: FrameSymbols  # its `frame` picks location-list entries and constants
    cfa: tuple[str, int] | None  # CFA = register + offset (the CFI row); None: not that simple
    registers: Collection[str]  # the register object's attribute names
    read: ReadMemory


@dataclass(frozen=True, slots=True)
class _Node:
    type: Type
    value: Getter | None = None  # a scalar: the number, as convert.to_number gives it
    const: int | None = None  # a scalar known now
    address: Getter | None = None  # a struct in memory: where it starts


class _Unsupported(Exception):
    """This condition is for the general evaluator."""


def compile_condition(tree: ast.Expr, frame: PcFrame) -> Callable[[Any], bool] | None:
    """A closure telling from a thread's registers whether `tree` holds, or None."""
    try:
        node = _Compiler(frame).scalar(tree)
    except (_Unsupported, EvaluationError):  # unreadable DWARF too: the general evaluator
        return None
    value = _getter(node)
    return lambda regs: value(regs) != 0


class _Compiler:
    def __init__(self, frame: PcFrame) -> None:
        self.frame = frame
        self.builtins = Builtins()
        self.truth_type = self.builtins.of("bool" if frame.symbols.cplus else "int")

    # --- nodes ---------------------------------------------------------------------------
    def node(self, tree: ast.Expr) -> _Node:
        if isinstance(tree, ast.IntLit):
            t = self.builtins.of(tree.type_name)
            return _Node(t, const=_converter(t)(tree.value))
        if isinstance(tree, ast.CharLit):
            t = self.builtins.of(tree.type_name)
            return _Node(t, const=_converter(t)(tree.value))
        if isinstance(tree, ast.Name):
            return self.name(tree.name)
        if isinstance(tree, ast.Member):
            return self.member(self.node(tree.base), tree.name)
        if isinstance(tree, ast.Unary):
            return self.unary(tree.op, tree.operand)
        if isinstance(tree, ast.Cast):
            return self.cast(tree.type, self.scalar(tree.operand))
        if isinstance(tree, ast.Binary):
            if tree.op in ("&&", "||"):
                return self.logical(tree.op, self.scalar(tree.left), self.scalar(tree.right))
            return self.arith(tree.op, self.scalar(tree.left), self.scalar(tree.right))
        raise _Unsupported  # floats, strings, registers, calls, assignments, [], ?:, sizeof

    def scalar(self, tree: ast.Expr) -> _Node:
        node = self.node(tree)
        if node.value is None and node.const is None:
            raise _Unsupported  # a struct where a number is wanted: the general error
        return node

    def truth(self, fn: Callable[[Any], bool], *parts: _Node) -> _Node:
        return _fold(self.truth_type, lambda regs: 1 if fn(regs) else 0, parts)

    # --- names -----------------------------------------------------------------------------
    def name(self, name: str) -> _Node:
        if "::" in name:
            raise _Unsupported
        symbols = self.frame.symbols
        if symbols.scope is not None:
            var = symbols.scope.lookup(name)
        else:
            var = symbols.module.find_global(name)
        # Not in the frame's module (another library's global, a C++ member of `this`),
        # or no such name at all: the general evaluator looks further or says so.
        if var is None or var.kind is VarKind.FUNCTION:
            raise _Unsupported
        t = var.type
        if var.kind is VarKind.CONSTANT or "DW_AT_const_value" in var.die.attributes:
            if not _is_scalar(t):
                raise _Unsupported
            return _Node(t, const=symbols.module.value_of(var, symbols.frame).as_int())
        register, offset, in_register = self.location(var)
        if in_register:
            if register is None or not _is_scalar(t):
                raise _Unsupported
            return _Node(t, value=_register_value(register, t))
        return self.object_at(_address(register, offset), t)

    def object_at(self, address: Getter, t: Type) -> _Node:
        if isinstance(strip(t), StructType):
            return _Node(t, address=address)
        if not _is_scalar(t):
            raise _Unsupported
        return _Node(t, value=_load(self.frame.read, address, t))

    def location(self, var: Variable) -> tuple[str | None, int, bool]:
        """(register, offset, in_register): memory at register + offset (register None: a
        fixed address), or the register itself."""
        module, ctx = self.frame.symbols.module, self.frame.symbols.frame
        expr = module.expression_at(var.die, "DW_AT_location", ctx)
        if expr is None:
            if "DW_AT_location" in var.die.attributes:
                raise _Unsupported  # no location-list entry here: optimized out
            where = module.location(var, ctx)  # an extern declaration: the ELF symbol
            if not isinstance(where, MemoryLoc):
                raise _Unsupported
            return None, where.address, False
        r = ByteReader(expr)
        op = r.unsigned(1) if expr else -1
        if op == 0x03 and len(expr) == 9:  # DW_OP_addr: link-time
            return None, (r.unsigned(8) + ctx.load_bias) & MASK64, False
        if op == 0x91:  # DW_OP_fbreg
            offset = r.sleb()
            _at_end(r)
            base, base_offset = self.frame_base(var)
            return base, base_offset + offset, False
        return self.register_op(op, r)

    def register_op(self, op: int, r: ByteReader) -> tuple[str, int, bool]:
        """DW_OP_bregN/bregx (register + offset) or DW_OP_regN/regx (the register)."""
        offset = 0
        if 0x70 <= op <= 0x8F:
            regno, offset = op - 0x70, r.sleb()
        elif op == 0x92:
            regno = r.uleb()
            offset = r.sleb()
        elif 0x50 <= op <= 0x6F:
            regno = op - 0x50
        elif op == 0x90:
            regno = r.uleb()
        else:
            raise _Unsupported  # pieces, stack values, TLS, entry values...
        _at_end(r)
        name = DWARF_REGISTERS.get(regno)
        if name is None or name not in self.frame.registers:
            raise _Unsupported
        return name, offset, op < 0x70 or op == 0x90

    def frame_base(self, var: Variable) -> tuple[str, int]:
        """The frame base of the variable's function as register + offset."""
        function = var.frame_function
        if function is None:
            raise _Unsupported
        module, ctx = self.frame.symbols.module, self.frame.symbols.frame
        expr = module.expression_at(function, "DW_AT_frame_base", ctx)
        if not expr:
            raise _Unsupported
        if expr == b"\x9c":  # DW_OP_call_frame_cfa: the CFI row's register + offset
            if self.frame.cfa is None or self.frame.cfa[0] not in self.frame.registers:
                raise _Unsupported
            return self.frame.cfa
        r = ByteReader(expr)
        name, offset, _ = self.register_op(r.unsigned(1), r)  # breg: reg + N; reg: its value
        return name, offset

    def member(self, base: _Node, name: str) -> _Node:
        t = strip(base.type)
        address = base.address
        if isinstance(t, PointerType) and base.value is not None:  # `p->x`, and `p.x` as gdb
            address, t = base.value, strip(t.target)
        if not isinstance(t, StructType) or address is None:
            raise _Unsupported
        # Direct members only: anonymous members and base classes are searched further by
        # the general evaluator (values.find_member).
        member = next((m for m in t.members if m.name == name and not m.is_base), None)
        if member is None or member.offset is None or member.bit_size:
            raise _Unsupported
        start, offset = address, member.offset
        return self.object_at(lambda regs: (start(regs) + offset) & MASK64, member.type)

    # --- operators ---------------------------------------------------------------------
    def unary(self, op: str, operand_tree: ast.Expr) -> _Node:
        if op not in ("-", "+", "~", "!"):
            raise _Unsupported  # * & sizeof ++ --
        operand = self.scalar(operand_tree)
        value = _getter(operand)
        if op == "!":
            return self.truth(lambda regs: value(regs) == 0, operand)
        if isinstance(strip(operand.type), PointerType):
            raise _Unsupported  # the general evaluator's error
        t = promote(operand.type, self.builtins)
        to_t = _converter(t)
        if op == "-":
            return _fold(t, lambda regs: to_t(-value(regs)), (operand,))
        if op == "~":
            return _fold(t, lambda regs: to_t(~value(regs)), (operand,))
        return _fold(t, lambda regs: to_t(value(regs)), (operand,))

    def cast(self, target: ast.TypeName, operand: _Node) -> _Node:
        t = self.builtins.get(target.base)
        if target.pointers or target.array or t is None or not _is_scalar(t):
            raise _Unsupported  # typedefs, pointers, floats: the general evaluator
        value, to_t = _getter(operand), _converter(t)
        return _fold(t, lambda regs: to_t(value(regs)), (operand,))

    def logical(self, op: str, left: _Node, right: _Node) -> _Node:
        a, b = _getter(left), _getter(right)
        if op == "&&":
            return self.truth(lambda regs: a(regs) != 0 and b(regs) != 0, left, right)
        return self.truth(lambda regs: a(regs) != 0 or b(regs) != 0, left, right)

    def arith(self, op: str, left: _Node, right: _Node) -> _Node:
        if isinstance(strip(left.type), PointerType) or isinstance(strip(right.type), PointerType):
            if op not in _COMPARE:
                raise _Unsupported  # pointer arithmetic
            compare = _COMPARE[op]
            a, b = _getter(left), _getter(right)  # pointers compare as raw numbers
            return self.truth(lambda regs: compare(a(regs), b(regs)), left, right)
        shift = op in ("<<", ">>")
        t = promote(left.type, self.builtins) if shift else common_type(left.type, right.type, self.builtins)
        a = _converted(left, t)
        b = _getter(right) if shift else _converted(right, t)  # a shift count keeps its value
        if op in _COMPARE:
            compare = _COMPARE[op]
            return self.truth(lambda regs: compare(a(regs), b(regs)), left, right)
        if op not in _ARITH:
            raise _Unsupported
        apply, to_t = _ARITH[op], _converter(t)
        return _fold(t, lambda regs: to_t(apply(a(regs), b(regs))), (left, right))


# --- helpers -------------------------------------------------------------------------------
def _at_end(r: ByteReader) -> None:
    if not r.at_end():
        raise _Unsupported  # more operations: an expression not covered


def _is_scalar(t: Type) -> bool:
    s = strip(t)
    if isinstance(s, PointerType):
        return True
    if isinstance(s, BaseType) and s.encoding in _NOT_NUMBERS:
        return False
    return isinstance(s, (BaseType, EnumType)) and s.size in (1, 2, 4, 8)


def _converter(t: Type) -> Callable[[int], int]:
    """A number converted to `t` the C way (convert.make then to_number): wrapped."""
    s = strip(t)
    if not _is_scalar(s):
        raise _Unsupported
    if isinstance(s, BaseType) and s.encoding is Encoding.BOOL:
        return lambda number: 1 if number else 0
    bits = 8 * s.size
    mask, half = (1 << bits) - 1, 1 << (bits - 1)
    if is_scalar_signed(s):
        return lambda number: ((number + half) & mask) - half
    return lambda number: number & mask


def _fits(source: Type, target: Type) -> bool:
    """Every value of `source` is the same value in `target` (no conversion to run)."""
    s, t = strip(source), strip(target)
    if isinstance(t, BaseType) and t.encoding is Encoding.BOOL:
        return False
    signed_s, signed_t = is_scalar_signed(s), is_scalar_signed(t)
    if s.size == t.size:
        return signed_s == signed_t
    return s.size < t.size and (signed_t or not signed_s)


def _getter(node: _Node) -> Getter:
    if node.const is not None:
        const = node.const
        return lambda regs: const
    if node.value is None:
        raise _Unsupported
    return node.value


def _converted(node: _Node, t: Type) -> Getter:
    convert = _converter(t)
    if node.const is not None:
        const = convert(node.const)
        return lambda regs: const
    value = _getter(node)
    if _fits(node.type, t):
        return value
    return lambda regs: convert(value(regs))


def _fold(t: Type, fn: Getter, parts: tuple[_Node, ...]) -> _Node:
    """Work out now what depends on no register or memory (`-1`, `(char)65`)."""
    if all(part.const is not None for part in parts):
        try:
            return _Node(t, const=fn(None))
        except (ArithmeticError, EvaluationError):
            pass  # `1 / 0`: raised at each hit, where the general evaluator says why
    return _Node(t, value=fn)


def _address(register: str | None, offset: int) -> Getter:
    if register is None:
        fixed = offset & MASK64
        return lambda regs: fixed
    get = operator.attrgetter(register)
    return lambda regs: (get(regs) + offset) & MASK64


def _load(read: ReadMemory, address: Getter, t: Type) -> Getter:
    size, signed = strip(t).size, is_scalar_signed(t)
    from_bytes = int.from_bytes
    return lambda regs: from_bytes(read(address(regs), size), "little", signed=signed)


def _register_value(register: str, t: Type) -> Getter:
    """A variable in a register: its low bytes (values.Value of a RegisterLoc)."""
    get = operator.attrgetter(register)
    bits = 8 * strip(t).size
    mask, half = (1 << bits) - 1, 1 << (bits - 1)
    if is_scalar_signed(t):
        return lambda regs: ((get(regs) + half) & mask) - half
    return lambda regs: get(regs) & mask


def _divide(a: int, b: int) -> int:
    if b == 0:
        raise EvaluationError("Division by zero")
    return abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C truncates toward zero


def _shift_left(a: int, b: int) -> int:
    return a << b if 0 <= b < 128 else 0


def _shift_right(a: int, b: int) -> int:
    return a >> b if 0 <= b < 128 else (-1 if a < 0 else 0)


# operators.apply for integers.
_ARITH: dict[str, Callable[[int, int], int]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul,
    "&": operator.and_, "|": operator.or_, "^": operator.xor,
    "/": _divide, "%": lambda a, b: a - _divide(a, b) * b,
    "<<": _shift_left, ">>": _shift_right,
}  # fmt: skip
