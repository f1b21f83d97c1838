"""DWARF location expressions (DW_OP_*) and location lists, evaluated against a frame.

The result says where a variable lives: memory, a register, implicit bytes, a composite of
pieces, or nowhere ("optimized out"). DW_OP_addr values are link-time and get the load bias.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol

from aliceserver.debuggers.symbols.dwarf import rawread
from aliceserver.debuggers.symbols.dwarf import typedstack as typed
from aliceserver.debuggers.symbols.dwarf.stackops import BINARY_OPS
from aliceserver.debuggers.symbols.dwarf.typedstack import BaseType, Entry, Typed
from aliceserver.errors import ProtocolError

log = logging.getLogger(__name__)

MASK64 = (1 << 64) - 1
_MAX_STEPS = 10_000  # a branch loop in a corrupt expression must end
_WIDE = "That operation is not available on integers of more than 8 bytes."  # gdb's words


class EvaluationError(ProtocolError):
    """An expression or a value cannot be evaluated; the message is gdb-like."""


MAX_NESTING = 256  # gdb's max_recursion_depth: expressions evaluated one inside another


class LoopDetected(EvaluationError):
    """gdb's error for an expression evaluated inside more than MAX_NESTING others (a chain
    of entry values through a deep recursion): an error, not an optimized-out value."""

    def __init__(self, depth: int) -> None:
        super().__init__(f"DWARF-2 expression error: Loop detected ({depth}).")


class ByteReader(rawread.ByteReader):
    """The kit's byte cursor (rawread.py), failing as an expression does."""

    __slots__ = ()

    def error(self, at: int, runaway: bool) -> Exception:
        return EvaluationError("truncated DWARF data")


# --- locations -------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class MemoryLoc:
    address: int


@dataclass(frozen=True, slots=True)
class RegisterLoc:
    regno: int
    offset: int = 0  # bytes into the register: gdb's $eax, $ah, $xmm0.v4_float[1]


@dataclass(frozen=True, slots=True)
class ImplicitLoc:
    """The value itself (DW_OP_implicit_value, DW_OP_stack_value): not an lvalue."""

    data: bytes
    typed: BaseType | None = None  # a typed DW_OP_stack_value's base type (typedstack.py)


@dataclass(frozen=True, slots=True)
class OptimizedOut:
    reason: str = "optimized out"
    error: bool = False  # no location for an error (`reason`): reading it fails with that
    # An implicit pointer's: where the object it points to is (implicitptr.py)
    pointee: Callable[[], Location] | None = field(default=None, compare=False)


NOT_SAVED = "not saved"  # OptimizedOut's reason for a register an outer frame lost (`<not saved>`)
IMPLICIT_POINTER = "implicit pointer"  # a pointer to an object with no address (`<synthetic pointer>`)


@dataclass(frozen=True, slots=True)
class Piece:
    location: MemoryLoc | RegisterLoc | ImplicitLoc | OptimizedOut
    size_bits: int
    bit_offset: int = 0  # DW_OP_bit_piece: offset within the piece's source


@dataclass(frozen=True, slots=True)
class CompositeLoc:
    pieces: tuple[Piece, ...]


Location = MemoryLoc | RegisterLoc | ImplicitLoc | OptimizedOut | CompositeLoc


class LocContext(Protocol):
    """What a location expression may consult (the FrameContext of scopes.py conforms)."""

    def read_memory(self, address: int, size: int) -> bytes: ...

    def register(self, regno: int) -> int | None: ...

    def cfa(self) -> int | None: ...

    @property
    def fs_base(self) -> int | None: ...


@dataclass(frozen=True, slots=True)
class ExprEnv:
    """Per-module facts an expression needs besides the frame."""

    load_bias: int = 0
    frame_base: Callable[[], int] | None = None
    tls_block_offset: int | None = None  # executable only (see dies.DwarfUnits)
    tls_block: Callable[[], int] | None = None  # a library's block for this thread (tls.py)
    addrx: Callable[[int], int] | None = None
    address_size: int = 8
    # DW_OP_entry_value's block -> the value it had at the function's entry (callsites.py)
    entry_value: Callable[[bytes], Entry] | None = None
    # DW_OP_implicit_pointer's DIE (section offset) and byte offset -> where that object is
    implicit_pointer: Callable[[int, int], Location] | None = None
    # DW_OP_GNU_parameter_ref's unit offset -> the caller's value for that parameter
    parameter_ref: Callable[[int], Entry] | None = None
    # A base type DIE's offset in the unit -> the type, for typed stack values (typedstack.py)
    base_type: Callable[[int], BaseType] | None = None


def _to_signed(value: int) -> int:
    value &= MASK64
    return value - (1 << 64) if value >> 63 else value


def _reg(ctx: LocContext, regno: int) -> int:
    value = ctx.register(regno)
    if value is None:
        raise EvaluationError(f"register {regno} is not available in this frame")
    return value & MASK64


def _register_bytes(ctx: LocContext, regno: int, size: int) -> bytes:
    """A register's low `size` bytes (an xmm register holds 16, a general one 8)."""
    value = ctx.register(regno)
    if value is None:
        raise EvaluationError(f"register {regno} is not available in this frame")
    width = max(size, 8, (value.bit_length() + 7) // 8)
    return (value & ((1 << (8 * width)) - 1)).to_bytes(width, "little")[:size]


def _read_int(ctx: LocContext, address: int, size: int) -> int:
    try:
        data = ctx.read_memory(address & MASK64, size)
    except Exception as exc:  # the engine raises TargetError, a test reader OSError
        raise EvaluationError(f"Cannot access memory at address {address & MASK64:#x}") from exc
    return int.from_bytes(data, "little")


def evaluate(expr: bytes, ctx: LocContext, env: ExprEnv) -> Location:
    """Evaluate a DWARF expression to a location. EvaluationError when it cannot be done
    (an unknown register, unreadable memory, an unsupported operation)."""
    if len(expr) == 1 and 0x50 <= expr[0] <= 0x6F:  # DW_OP_regN alone: an optimized argument's
        return RegisterLoc(expr[0] - 0x50)  # usual place, asked for each thread's frame
    if len(expr) == 4 and expr[0] in (0xA3, 0xF3) and expr[1] == 1 and 0x50 <= expr[2] <= 0x6F and expr[3] == 0x9F:
        return _entry_register_value(expr[2:3], env)  # the other usual one: no stack machine
    try:
        return _evaluate(expr, ctx, env)
    except typed.TypedStackError as exc:
        raise EvaluationError(str(exc)) from None


def _entry_register_value(block: bytes, env: ExprEnv) -> Location:
    """DW_OP_entry_value(DW_OP_regN) DW_OP_stack_value alone, as _evaluate gives it."""
    if env.entry_value is None:
        return OptimizedOut("entry value unavailable")
    try:
        found = env.entry_value(block)
    except LoopDetected:  # not gdb's NO_ENTRY_VALUE_ERROR: the whole evaluation fails
        raise
    except EvaluationError as exc:  # gdb's NO_ENTRY_VALUE_ERROR: optimized out
        return OptimizedOut(str(exc))
    if isinstance(found, Typed):
        return ImplicitLoc(typed.stack_bytes(found), found.type)
    return ImplicitLoc(typed.stack_bytes(found & MASK64), None)


def _evaluate(expr: bytes, ctx: LocContext, env: ExprEnv) -> Location:
    if not expr:
        return OptimizedOut()
    r = ByteReader(expr)
    stack: list[Entry] = []  # ints (the generic type), or typed values
    pieces: list[Piece] = []
    pending: MemoryLoc | RegisterLoc | ImplicitLoc | OptimizedOut | None = None
    steps = 0

    def pop_entry() -> Entry:
        if not stack:
            raise EvaluationError("DWARF expression stack underflow")
        return stack.pop()

    def pop() -> int:
        return typed.as_integer(pop_entry())

    def base_type(offset: int) -> BaseType:
        if offset == 0:
            return typed.GENERIC
        if env.base_type is None:
            raise EvaluationError("typed DWARF stack values are not supported here")
        return env.base_type(offset)

    while not r.at_end():
        steps += 1
        if steps > _MAX_STEPS:
            raise EvaluationError("DWARF expression does not terminate")
        op = r.unsigned(1)
        if 0x30 <= op <= 0x4F:  # DW_OP_lit0..31
            stack.append(op - 0x30)
        elif 0x50 <= op <= 0x6F:  # DW_OP_reg0..31
            pending = RegisterLoc(op - 0x50)
        elif 0x70 <= op <= 0x8F:  # DW_OP_breg0..31
            stack.append((_reg(ctx, op - 0x70) + r.sleb()) & MASK64)
        elif op == 0x03:  # addr
            stack.append((r.unsigned(env.address_size) + env.load_bias) & MASK64)
        elif op in (0xA1, 0xFB):  # addrx, GNU_addr_index
            if env.addrx is None:
                raise EvaluationError("DW_OP_addrx without .debug_addr")
            stack.append((env.addrx(r.uleb()) + env.load_bias) & MASK64)
        elif op in (0xA2, 0xFC):  # constx, GNU_const_index
            if env.addrx is None:
                raise EvaluationError("DW_OP_constx without .debug_addr")
            stack.append(env.addrx(r.uleb()))
        elif op == 0x06:  # deref
            stack.append(_read_int(ctx, pop(), env.address_size))
        elif op == 0x94:  # deref_size
            size = r.unsigned(1)
            if size > 8:  # clang -O2 writes 16 for a double kept in an xmm spill slot
                raise EvaluationError(_WIDE)
            stack.append(_read_int(ctx, pop(), size))
        elif op in (0xA6, 0xF6):  # deref_type
            size = r.unsigned(1)
            t = base_type(r.uleb())
            number = _read_int(ctx, pop(), size)  # zero-extended to the type, as gdb
            stack.append(typed.from_bits(t, number))
        elif 0x08 <= op <= 0x0F:  # const1u .. const8s
            size = 1 << ((op - 0x08) // 2)
            signed = (op - 0x08) % 2 == 1
            stack.append((r.signed(size) if signed else r.unsigned(size)) & MASK64)
        elif op == 0x10:
            stack.append(r.uleb() & MASK64)
        elif op == 0x11:
            stack.append(r.sleb() & MASK64)
        elif op == 0x12:  # dup
            stack.append(stack[-1] if stack else pop())
        elif op == 0x13:
            pop_entry()
        elif op == 0x14:  # over
            if len(stack) < 2:
                raise EvaluationError("DWARF expression stack underflow")
            stack.append(stack[-2])
        elif op == 0x15:  # pick
            index = r.unsigned(1)
            if index >= len(stack):
                raise EvaluationError("DWARF expression stack underflow")
            stack.append(stack[-1 - index])
        elif op == 0x16:  # swap
            a, b = pop_entry(), pop_entry()
            stack += [a, b]
        elif op == 0x17:  # rot: (c b a -> a c b), top first
            a, b, c = pop_entry(), pop_entry(), pop_entry()
            stack += [a, c, b]
        elif op in (0x19, 0x1F, 0x20) and stack and isinstance(stack[-1], Typed):  # abs, neg, not
            unary = {0x19: typed.absolute, 0x1F: typed.negate, 0x20: typed.complement}[op]
            stack.append(unary(pop_entry()))
        elif op == 0x19:
            stack.append(abs(_to_signed(pop())) & MASK64)
        elif op == 0x1F:
            stack.append(-pop() & MASK64)
        elif op == 0x20:
            stack.append(~pop() & MASK64)
        elif op == 0x23:  # plus_uconst
            stack.append((pop() + r.uleb()) & MASK64)
        elif op in BINARY_OPS:
            second, first = pop_entry(), pop_entry()
            if isinstance(first, Typed) or isinstance(second, Typed):
                stack.append(typed.binary(op, first, second))
                continue
            try:
                stack.append(BINARY_OPS[op](first & MASK64, second & MASK64) & MASK64)
            except ZeroDivisionError:
                raise EvaluationError("Division by zero") from None
        elif op == 0x28:  # bra
            offset = r.signed(2)
            if pop() != 0:
                r.pos += offset
                if not 0 <= r.pos <= len(expr):
                    raise EvaluationError("DWARF branch outside the expression")
        elif op == 0x2F:  # skip (read the offset first: it moves the position)
            offset = r.signed(2)
            r.pos += offset
            if not 0 <= r.pos <= len(expr):
                raise EvaluationError("DWARF branch outside the expression")
        elif op == 0x90:  # regx
            pending = RegisterLoc(r.uleb())
        elif op == 0x91:  # fbreg
            if env.frame_base is None:
                raise EvaluationError("DW_OP_fbreg without a frame base")
            stack.append((env.frame_base() + r.sleb()) & MASK64)
        elif op == 0x92:  # bregx
            regno = r.uleb()
            stack.append((_reg(ctx, regno) + r.sleb()) & MASK64)
        elif op == 0x9C:  # call_frame_cfa
            cfa = ctx.cfa()
            if cfa is None:
                raise EvaluationError("the frame's CFA is unknown")
            stack.append(cfa & MASK64)
        elif op in (0x9B, 0xE0):  # form_tls_address, GNU_push_tls_address
            stack.append(_tls_address(ctx, env, pop()))
        elif op == 0x9E:  # implicit_value
            pending = ImplicitLoc(r.take(r.uleb()))
        elif op == 0x9F:  # stack_value
            top = pop_entry()
            pending = ImplicitLoc(typed.stack_bytes(top), top.type if isinstance(top, Typed) else None)
        elif op in (0xA3, 0xF3):  # entry_value: the caller's value at the call
            block = r.take(r.uleb())
            if env.entry_value is None:
                return OptimizedOut("entry value unavailable")
            try:
                found = env.entry_value(block)
                stack.append(found if isinstance(found, Typed) else found & MASK64)
            except LoopDetected:  # not gdb's NO_ENTRY_VALUE_ERROR: the whole evaluation fails
                raise
            except EvaluationError as exc:  # gdb's NO_ENTRY_VALUE_ERROR: optimized out
                return OptimizedOut(str(exc))
        elif op == 0xFA:  # GNU_parameter_ref: a parameter a clone lost, known at the call
            offset = r.unsigned(4)
            if env.parameter_ref is None:
                return OptimizedOut("parameter reference unavailable")
            try:
                found = env.parameter_ref(offset)
            except LoopDetected:
                raise
            except EvaluationError as exc:  # gdb's NO_ENTRY_VALUE_ERROR: optimized out
                return OptimizedOut(str(exc))
            stack.append(found if isinstance(found, Typed) else found & MASK64)
        elif op in (0xA0, 0xF2):  # implicit_pointer: a pointer to an optimized-out object
            ref = r.unsigned(4 if env.address_size == 8 else env.address_size)
            offset = r.sleb()
            at = None if env.implicit_pointer is None else partial(env.implicit_pointer, ref, offset)
            return OptimizedOut(IMPLICIT_POINTER, pointee=at)
        elif op in (0xA4, 0xF4):  # const_type: die, size, bytes
            t = base_type(r.uleb())
            data = r.take(r.unsigned(1))
            if len(data) != t.size:  # gdb's check
                raise EvaluationError("DW_OP_const_type has different sizes for type and data")
            stack.append(typed.from_bits(t, int.from_bytes(data, "little")))
        elif op in (0xA5, 0xF5):  # regval_type: the register's low bytes as the type
            regno = r.uleb()
            t = base_type(r.uleb())
            stack.append(typed.from_bits(t, int.from_bytes(_register_bytes(ctx, regno, t.size), "little")))
        elif op in (0xA8, 0xF7):  # convert: the same number in another type
            stack.append(typed.convert(pop_entry(), base_type(r.uleb())))
        elif op in (0xA9, 0xF9):  # reinterpret: the same bits as another type
            stack.append(typed.reinterpret(pop_entry(), base_type(r.uleb())))
        elif op == 0x96:  # nop
            pass
        elif op == 0x93:  # piece
            pieces.append(Piece(_piece_source(pending, stack), r.uleb() * 8))
            pending = None
            stack.clear()
        elif op == 0x9D:  # bit_piece
            size = r.uleb()
            pieces.append(Piece(_piece_source(pending, stack), size, r.uleb()))
            pending = None
            stack.clear()
        elif op == 0xF0:  # GNU_uninit
            pass
        else:
            raise EvaluationError(f"unsupported DWARF operation {op:#x}")
    if pieces:
        if pending is not None or stack:
            log.debug("trailing location after the last piece ignored")
        return CompositeLoc(tuple(pieces))
    if pending is not None:
        return pending
    if not stack:
        return OptimizedOut()
    return MemoryLoc(typed.as_integer(stack[-1]))


def _piece_source(
    pending: MemoryLoc | RegisterLoc | ImplicitLoc | OptimizedOut | None, stack: list[Entry]
) -> MemoryLoc | RegisterLoc | ImplicitLoc | OptimizedOut:
    if pending is not None:
        return pending
    if stack:
        return MemoryLoc(typed.as_integer(stack[-1]))
    return OptimizedOut()  # an empty piece: this part of the object is gone


def _tls_address(ctx: LocContext, env: ExprEnv, offset: int) -> int:
    if env.tls_block is not None:
        return (env.tls_block() + offset) & MASK64
    fs_base = ctx.fs_base
    if fs_base is None or env.tls_block_offset is None:
        raise EvaluationError("Cannot access thread-local storage of this module")
    return (fs_base - env.tls_block_offset + offset) & MASK64




# --- location lists ------------------------------------------------------------------------
def _entry_record(low: int, high: int, pc: int, entry_pc: int | None) -> bool:
    return low == high == pc and pc == entry_pc


def loclist_v4(data: bytes, offset: int, base: int, pc: int, entry_pc: int | None = None) -> bytes | None:
    """The expression of the .debug_loc entry covering link-time `pc`, else None. An empty
    range at `pc` counts when `pc` is its function's `entry_pc` (gcc's entry-point record,
    as gdb's dwarf2_find_location_expression reads it)."""
    r = ByteReader(data, offset)
    while r.pos + 16 <= len(data):
        begin, end = r.unsigned(8), r.unsigned(8)
        if begin == 0 and end == 0:
            return None
        if begin == MASK64:
            base = end
            continue
        expr = r.take(r.unsigned(2))
        if base + begin <= pc < base + end or _entry_record(base + begin, base + end, pc, entry_pc):
            return expr
    return None


def loclist_end(data: bytes, offset: int, version: int) -> int | None:
    """Where the location list at `offset` of `data` (.debug_loc before DWARF 5, else
    .debug_loclists) ends, past its end-of-list entry; None where `data` stops first (a
    part of the section read: read more). An unknown entry kind ends the scan there, for
    loclist_v5 to meet it as it would in the whole section."""
    pos = offset
    try:
        while True:
            if version < 5:
                if pos + 16 > len(data):
                    return None
                begin, end = int.from_bytes(data[pos : pos + 8], "little"), int.from_bytes(data[pos + 8 : pos + 16], "little")
                pos += 16
                if begin == 0 and end == 0:
                    return pos
                if begin != MASK64:
                    pos += 2 + int.from_bytes(data[pos : pos + 2], "little")
                continue
            kind = data[pos]
            pos += 1
            if kind == 0:
                return pos
            if kind in (1, 2, 3, 4):  # base_addressx, startx_endx, startx_length, offset_pair
                pos = rawread.uleb(data, pos)[1]
                if kind == 1:
                    continue
                pos = rawread.uleb(data, pos)[1]
            elif kind in (6, 7, 8):  # base_address, start_end, start_length
                pos += 8 if kind != 7 else 16
                if kind == 6:
                    continue
                if kind == 8:
                    pos = rawread.uleb(data, pos)[1]
            elif kind != 5:  # default_location has an expression alone
                return pos
            length, pos = rawread.uleb(data, pos)
            pos += length
    except IndexError:  # a number cut off by the end of `data`
        return None


def loclist_v5(
    data: bytes, offset: int, base: int, pc: int, addrx: Callable[[int], int], entry_pc: int | None = None
) -> bytes | None:
    """The expression of the .debug_loclists entry covering `pc` (DW_LLE_*), else None; an
    empty range counts as loclist_v4 says."""
    r = ByteReader(data, offset)
    default: bytes | None = None
    while not r.at_end():
        kind = r.unsigned(1)
        low = high = None
        if kind == 0:  # end_of_list
            break
        if kind == 1:  # base_addressx
            base = addrx(r.uleb())
            continue
        if kind == 6:  # base_address
            base = r.unsigned(8)
            continue
        if kind == 2:  # startx_endx
            low = addrx(r.uleb())
            high = addrx(r.uleb())
        elif kind == 3:  # startx_length
            low = addrx(r.uleb())
            high = low + r.uleb()
        elif kind == 4:  # offset_pair
            low = base + r.uleb()
            high = base + r.uleb()
        elif kind == 7:  # start_end
            low, high = r.unsigned(8), r.unsigned(8)
        elif kind == 8:  # start_length
            low = r.unsigned(8)
            high = low + r.uleb()
        elif kind != 5:  # default_location has no range
            raise EvaluationError(f"unknown DW_LLE kind {kind}")
        expr = r.take(r.uleb())
        if kind == 5:
            default = expr
        elif low is not None and high is not None and (low <= pc < high or _entry_record(low, high, pc, entry_pc)):
            return expr
    return default


def loclist_bounds(data: bytes, version: int, base: int, addrx: Callable[[int], int]) -> list[int]:
    """Where the entries of the list at the start of `data` begin and end (an empty one: its
    pc and the next): between two neighbours the entries covering a pc are the same, and
    so the expression loclist_v4/v5 find (keptsteps.py)."""
    r = ByteReader(data, 0)
    bounds: list[int] = []
    while not r.at_end():
        if version < 5:
            if r.pos + 16 > len(data):
                break
            low, high = r.unsigned(8), r.unsigned(8)
            if low == 0 and high == 0:
                break
            if low == MASK64:
                base = high
                continue
            r.take(r.unsigned(2))
            low, high = base + low, base + high
        else:
            kind = r.unsigned(1)
            if kind == 0:
                break
            if kind in (1, 6):
                base = addrx(r.uleb()) if kind == 1 else r.unsigned(8)
                continue
            found = _v5_range(r, kind, base, addrx)
            r.take(r.uleb())
            if found is None:
                continue  # default_location: covers what no other entry does
            low, high = found
        bounds += [low, high] if low != high else [low, low + 1]
    return bounds


def _v5_range(r: ByteReader, kind: int, base: int, addrx: Callable[[int], int]) -> tuple[int, int] | None:
    """A DW_LLE entry's [low, high), as loclist_v5 reads it (None: default_location)."""
    if kind == 2:  # startx_endx
        return addrx(r.uleb()), addrx(r.uleb())
    if kind == 3:  # startx_length
        low = addrx(r.uleb())
        return low, low + r.uleb()
    if kind == 4:  # offset_pair
        return base + r.uleb(), base + r.uleb()
    if kind == 7:  # start_end
        return r.unsigned(8), r.unsigned(8)
    if kind == 8:  # start_length
        low = r.unsigned(8)
        return low, low + r.uleb()
    if kind != 5:
        raise EvaluationError(f"unknown DW_LLE kind {kind}")
    return None
