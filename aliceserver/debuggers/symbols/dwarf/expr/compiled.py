"""Breakpoint conditions compiled, for one pc of one loaded module, into Python closures.

At a given pc the scope, each variable's location expression and type, the frame base and
the CFA rule are all fixed, so `i == -1` comes down to "read 4 bytes at rsp + 16 - 20,
compare with -1": no scope walk, no Value objects. The analysis here produces the small IR
of condition_ir.py; its closures read the registers and memory afresh at every call (values
change between hits; each thread has its own frame).

Covered: integer, bool, enum and pointer variables (locals and parameters at a register +
offset or in a register, globals and statics at a fixed address, members of structs in
memory, through `.` or `->`), integer and character literals, casts to built-in integer
types, unary `- + ~ !`, arithmetic, shifts, bitwise operators, comparisons, `&&` and `||`,
with the general evaluator's C semantics (evaluate.py, convert.py). For anything else
`compile_condition` answers None and the caller keeps the general evaluator, which also
judges every compiled closure that raises (and says what is wrong).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from aliceserver.debuggers.symbols.dwarf.expr import FrameSymbols, ast
from aliceserver.debuggers.symbols.dwarf.expr import condition_ir as ir
from aliceserver.debuggers.symbols.dwarf.expr.condition_ir import MASK64, ReadMemory
from aliceserver.debuggers.symbols.dwarf.expr.convert import Builtins, common_type, promote
from aliceserver.debuggers.symbols.dwarf.locexpr import ByteReader, EvaluationError, MemoryLoc
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
from aliceserver.debuggers.symbols.dwarf.variable import Variable, VarKind

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
    value: ir.Node | None = None  # a scalar: the number, as convert.to_number gives it
    address: ir.Node | None = None  # a struct in memory: where it starts


class _Unsupported(Exception):
    """This condition is for the general evaluator."""


def analyse_condition(tree: ast.Expr, frame: PcFrame) -> ir.Node | None:
    """`tree` as IR whose value is non-zero when the condition holds, or None."""
    return analyse_value(tree, frame)


def analyse_value(tree: ast.Expr, frame: PcFrame) -> ir.Node | None:
    """The scalar `tree` as IR (the number convert.to_number gives), or None."""
    try:
        return _Compiler(frame).scalar(tree).value
    except (_Unsupported, EvaluationError):  # unreadable DWARF too: the general evaluator
        return None


def compile_condition(tree: ast.Expr, frame: PcFrame) -> Callable[[Any], bool] | None:
    """A closure telling from a thread's registers whether `tree` holds, or None."""
    node = analyse_condition(tree, frame)
    if node is None:
        return None
    value = ir.to_closure(node, frame.read)
    return lambda regs: value(regs) != 0


class _Compiler:
    def __init__(self, frame: PcFrame) -> None:
        self.frame = frame
        self.builtins = Builtins()
        self.truth_type = self.builtins.of("bool" if frame.symbols.cplus else "int")

    # --- nodes ---------------------------------------------------------------------------
    def node(self, tree: ast.Expr) -> _Node:
        if isinstance(tree, (ast.IntLit, ast.CharLit)):
            t = self.builtins.of(tree.type_name)
            return _Node(t, value=_fold(_converted_ir(ir.Const(tree.value), t)))
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
                left, right = self.scalar(tree.left), self.scalar(tree.right)
                return self.truth(ir.Logical(tree.op, _value(left), _value(right)))
            return self.arith(tree.op, self.scalar(tree.left), self.scalar(tree.right))
        raise _Unsupported  # floats, strings, registers, calls, assignments, [], ?:, sizeof

    def scalar(self, tree: ast.Expr) -> _Node:
        node = self.node(tree)
        if node.value is None:
            raise _Unsupported  # a struct where a number is wanted: the general error
        return node

    def truth(self, node: ir.Node) -> _Node:
        return _Node(self.truth_type, value=_fold(node))

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
            return _Node(t, value=ir.Const(symbols.module.value_of(var, symbols.frame).as_int()))
        register, offset, in_register = self.location(var)
        if in_register:
            if register is None or not _is_scalar(t):
                raise _Unsupported
            # A variable in a register: its low bytes (values.Value of a RegisterLoc).
            s = strip(t)
            return _Node(
                t, value=ir.Convert(ir.Register(register), 8 * s.size, is_scalar_signed(s))
            )
        if register is None:
            return self.object_at(ir.Const(offset & MASK64), t)
        return self.object_at(ir.Offset(ir.Register(register), offset), t)

    def object_at(self, address: ir.Node, t: Type) -> _Node:
        if isinstance(strip(t), StructType):
            return _Node(t, address=address)
        if not _is_scalar(t):
            raise _Unsupported
        return _Node(t, value=ir.Load(address, strip(t).size, is_scalar_signed(t)))

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
        return self.object_at(ir.Offset(address, member.offset), member.type)

    # --- operators ---------------------------------------------------------------------
    def unary(self, op: str, operand_tree: ast.Expr) -> _Node:
        if op not in ("-", "+", "~", "!"):
            raise _Unsupported  # * & sizeof ++ --
        operand = self.scalar(operand_tree)
        value = _value(operand)
        if op == "!":
            return self.truth(ir.Truth(value, negate=True))
        if isinstance(strip(operand.type), PointerType):
            raise _Unsupported  # the general evaluator's error
        t = promote(operand.type, self.builtins)
        if op == "+":
            return _Node(t, value=_fold(_conversion(value, t)))
        bits, signed = _width(t)
        return _Node(t, value=_fold(ir.Unary(op, value, bits, signed)))

    def cast(self, target: ast.TypeName, operand: _Node) -> _Node:
        t = self.builtins.get(target.base)
        if target.pointers or target.array or target.function_pointers or t is None or not _is_scalar(t):
            raise _Unsupported  # typedefs, pointers, floats: the general evaluator
        return _Node(t, value=_fold(_conversion(_value(operand), t)))

    def arith(self, op: str, left: _Node, right: _Node) -> _Node:
        if isinstance(strip(left.type), PointerType) or isinstance(strip(right.type), PointerType):
            if op not in ir.COMPARE:
                raise _Unsupported  # pointer arithmetic
            # Pointers compare as raw numbers, each side as its own type reads.
            signs = is_scalar_signed(strip(left.type)), is_scalar_signed(strip(right.type))
            return self.truth(ir.Compare(op, _value(left), _value(right), *signs))
        shift = op in ("<<", ">>")
        t = (
            promote(left.type, self.builtins)
            if shift
            else common_type(left.type, right.type, self.builtins)
        )
        a = _converted(left, t)
        b = _value(right) if shift else _converted(right, t)  # a shift count keeps its value
        bits, signed = _width(t)
        if op in ir.COMPARE:
            return self.truth(ir.Compare(op, a, b, signed, signed))
        if op not in ir.ARITH:
            raise _Unsupported
        return _Node(t, value=_fold(ir.Binary(op, a, b, bits, signed)))


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


def _is_bool(t: Type) -> bool:
    s = strip(t)
    return isinstance(s, BaseType) and s.encoding is Encoding.BOOL


def _width(t: Type) -> tuple[int, bool]:
    s = strip(t)
    if not _is_scalar(s):
        raise _Unsupported
    return 8 * s.size, is_scalar_signed(s)


def _conversion(value: ir.Node, t: Type) -> ir.Node:
    """A number converted to `t` the C way (convert.make then to_number): wrapped."""
    if _is_bool(t):
        return ir.Truth(value)
    bits, signed = _width(t)
    return ir.Convert(value, bits, signed)


def _converted_ir(value: ir.Node, t: Type) -> ir.Node:
    if not _is_scalar(t):
        raise _Unsupported
    return _conversion(value, t)


def _fits(source: Type, target: Type) -> bool:
    """Every value of `source` is the same value in `target` (no conversion to run)."""
    s, t = strip(source), strip(target)
    if isinstance(t, BaseType) and t.encoding is Encoding.BOOL:
        return False
    signed_s, signed_t = is_scalar_signed(s), is_scalar_signed(t)
    if s.size == t.size:
        return signed_s == signed_t
    return s.size < t.size and (signed_t or not signed_s)


def _value(node: _Node) -> ir.Node:
    if node.value is None:
        raise _Unsupported
    return node.value


def _converted(node: _Node, t: Type) -> ir.Node:
    value = _value(node)
    if isinstance(value, ir.Const):
        return _fold(_converted_ir(value, t))
    _width(t)  # not a number type: the general evaluator
    if _fits(node.type, t):
        return value
    return _conversion(value, t)


def _fold(node: ir.Node) -> ir.Node:
    """Work out now what depends on no register or memory (`-1`, `(char)65`)."""
    if isinstance(node, ir.Const) or not all(isinstance(part, ir.Const) for part in _parts(node)):
        return node
    try:
        return ir.Const(ir.to_closure(node, _no_memory)(None))
    except (ArithmeticError, EvaluationError):
        return node  # `1 / 0`: raised at each hit, where the general evaluator says why


def _parts(node: ir.Node) -> tuple[ir.Node, ...]:
    if isinstance(node, (ir.Binary, ir.Compare, ir.Logical)):
        return node.left, node.right
    if isinstance(node, (ir.Convert, ir.Truth, ir.Unary)):
        return (node.operand,)
    return (node,)  # registers, addresses and loads are never constant


def _no_memory(address: int, size: int) -> bytes:
    raise EvaluationError("no memory while folding")
