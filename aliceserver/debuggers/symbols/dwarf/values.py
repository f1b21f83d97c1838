"""Values: a type, where the bytes live (memory, register, implicit, pieces) and the bytes,
fetched lazily through the frame. Children (members, elements) share the parent's bytes.
"""

from __future__ import annotations

import logging
import math
import struct
from dataclasses import dataclass, field
from typing import Protocol

from aliceserver.debuggers.symbols.dwarf.locexpr import (
    NOT_SAVED,
    CompositeLoc,
    EvaluationError,
    ExprEnv,
    ImplicitLoc,
    Location,
    MemoryLoc,
    OptimizedOut,
    RegisterLoc,
)
from aliceserver.debuggers.symbols.dwarf.locexpr import evaluate as run_expression
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    EnumType,
    FunctionType,
    Member,
    PointerType,
    ReferenceType,
    StaticMember,
    StructType,
    Type,
    VoidType,
    is_scalar_signed,
    strip,
)

log = logging.getLogger(__name__)

__all__ = [
    "EvaluationError",
    "child_count",
    "children",
    "FrameContext",
    "is_rust_enum",
    "MemoryError_",
    "OptimizedOutError",
    "Value",
]

MASK64 = (1 << 64) - 1


class OptimizedOutError(EvaluationError):
    def __init__(self, message: str = "value has been optimized out") -> None:
        super().__init__(message)


class MemoryError_(EvaluationError):  # noqa: N801 - MemoryError is a builtin
    def __init__(self, address: int) -> None:
        super().__init__(f"Cannot access memory at address {address & MASK64:#x}")
        self.address = address


class FrameContext(Protocol):
    """What the engine provides for one frame of one stopped thread.

    Addresses are runtime addresses; DWARF's link-time addresses are `runtime - load_bias`.
    """

    @property
    def pc(self) -> int: ...

    @property
    def load_bias(self) -> int: ...

    @property
    def fs_base(self) -> int | None: ...

    def read_memory(self, address: int, size: int) -> bytes: ...

    def register(self, regno: int) -> int | None:
        """The register's value in this frame (DWARF numbering); None when unknown."""
        ...

    def cfa(self) -> int | None: ...

    def write_memory(self, address: int, data: bytes) -> None: ...

    def write_register(self, regno: int, value: int) -> None: ...


def read(ctx: FrameContext, address: int, size: int) -> bytes:
    if size == 0:
        return b""
    try:
        data = ctx.read_memory(address & MASK64, size)
    except Exception as exc:  # TargetError from the engine, OSError from test readers
        raise MemoryError_(_failed_at(str(exc), address & MASK64, size)) from exc
    if len(data) != size:
        raise MemoryError_(address)
    return data


def _failed_at(message: str, address: int, size: int) -> int:
    """The first byte the engine could not read, where its error names one in the range
    (gdb's memory_error names it: 0x4020 of a long at 0x401c), else the first."""
    prefix = "Cannot access memory at address 0x"
    if message.startswith(prefix):
        try:
            failed = int(message[len(prefix) :].split()[0], 16)
        except (ValueError, IndexError):
            return address
        if address <= failed < address + size:
            return failed
    return address


@dataclass(eq=False)
class Value:
    """A typed value. `location` is the lvalue (MemoryLoc, RegisterLoc) or how the bytes were
    computed; bitfields carry `bit_offset`/`bit_size` relative to the location."""

    type: Type
    location: Location
    ctx: FrameContext
    bit_offset: int = 0
    bit_size: int = 0
    _data: bytes | None = field(default=None, repr=False)
    _holes: tuple[tuple[int, int], ...] = ()  # optimized-out byte ranges (composites)

    # --- construction ---------------------------------------------------------------
    @classmethod
    def of_bytes(cls, t: Type, data: bytes, ctx: FrameContext) -> Value:
        return cls(t, ImplicitLoc(data), ctx, _data=data)

    @classmethod
    def of_int(cls, t: Type, value: int, ctx: FrameContext) -> Value:
        size = max(strip(t).size, 1)
        data = (value & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
        return cls.of_bytes(t, data, ctx)

    @classmethod
    def of_float(cls, t: Type, value: float, ctx: FrameContext) -> Value:
        size = strip(t).size
        if size == 4:
            try:
                data = struct.pack("<f", value)
            except OverflowError:
                data = struct.pack("<f", float("inf") if value > 0 else float("-inf"))
        elif size == 8:
            data = struct.pack("<d", value)
        else:
            data = _to_x87(value, size)
        return cls.of_bytes(t, data, ctx)

    # --- queries ---------------------------------------------------------------------
    @property
    def address(self) -> int | None:
        return self.location.address if isinstance(self.location, MemoryLoc) else None

    @property
    def is_lvalue(self) -> bool:
        return isinstance(self.location, (MemoryLoc, RegisterLoc))

    @property
    def byte_size(self) -> int:
        if self.bit_size:
            return (self.bit_offset + self.bit_size + 7) // 8
        return strip(self.type).size

    @property
    def optimized_out(self) -> bool:
        if isinstance(self.location, OptimizedOut):
            return not self.location.error
        if isinstance(self.location, CompositeLoc):
            try:
                self.data()
            except OptimizedOutError:
                return True
            except EvaluationError:
                return False
        return False

    def data(self) -> bytes:
        """The value's bytes; OptimizedOutError or MemoryError_ when they cannot be had."""
        if self._data is None:
            self._data, self._holes = self._fetch()
        if self._holes:
            raise OptimizedOutError()
        return self._data

    def _fetch(self) -> tuple[bytes, tuple[tuple[int, int], ...]]:
        size = self.byte_size
        loc = self.location
        if isinstance(loc, MemoryLoc):
            return read(self.ctx, loc.address, size), ()
        if isinstance(loc, RegisterLoc):
            value = self.ctx.register(loc.regno)
            if value is None:
                raise OptimizedOutError()
            width = max(loc.offset + size, 8)
            raw = (value & ((1 << (8 * width)) - 1)).to_bytes(width, "little")
            return raw[loc.offset : loc.offset + size], ()
        if isinstance(loc, ImplicitLoc):
            return loc.data[:size].ljust(size, b"\0"), ()
        if isinstance(loc, OptimizedOut):
            if loc.error:
                raise EvaluationError(loc.reason)
            raise OptimizedOutError("register has not been saved in frame" if loc.reason == NOT_SAVED else
                                    "value has been optimized out")
        return _compose(loc, self.ctx, size)

    def holes_overlap(self, start: int, size: int) -> bool:
        if self._data is None:
            try:
                self._data, self._holes = self._fetch()
            except OptimizedOutError:
                return True
        return any(lo < start + size and start < hi for lo, hi in self._holes)

    def as_int(self) -> int:
        """The integer value (signed per the type); bitfields extracted."""
        raw = int.from_bytes(self.data(), "little")
        t = strip(self.type)
        if self.bit_size:
            raw = (raw >> self.bit_offset) & ((1 << self.bit_size) - 1)
            if is_scalar_signed(t) and raw >> (self.bit_size - 1):
                raw -= 1 << self.bit_size
            return raw
        size = len(self.data())
        if is_scalar_signed(t) and size and raw >> (8 * size - 1):
            raw -= 1 << (8 * size)
        return raw

    def as_float(self) -> float:
        data = self.data()
        if len(data) == 4:
            return float(struct.unpack("<f", data)[0])
        if len(data) == 8:
            return float(struct.unpack("<d", data)[0])
        if len(data) in (10, 12, 16):
            return from_x87(data[:10])
        raise EvaluationError(f"unsupported floating-point size {len(data)}")

    # --- navigation ------------------------------------------------------------------
    def sub_value(self, t: Type, offset: int, bit_offset: int = 0, bit_size: int = 0) -> Value:
        """The part of this value at byte `offset` (a member or an element)."""
        loc = self.location
        if isinstance(loc, MemoryLoc):
            child = Value(t, MemoryLoc(loc.address + offset), self.ctx, bit_offset, bit_size)
            if self._data is not None and not self._holes:
                size = child.byte_size
                if offset + size <= len(self._data):
                    child._data = self._data[offset : offset + size]
            return child
        if isinstance(loc, RegisterLoc):  # a part of a register is one too, as gdb's lval_register
            return Value(t, RegisterLoc(loc.regno, loc.offset + offset), self.ctx, bit_offset, bit_size)
        # Implicit values and pieces: slice the parent's bytes (an rvalue part).
        child = Value(t, ImplicitLoc(b""), self.ctx, bit_offset, bit_size)
        size = child.byte_size
        try:
            whole = self._data
            if whole is None:
                whole, self._holes = self._fetch()
                self._data = whole
        except EvaluationError as exc:
            return Value(t, OptimizedOut(str(exc)), self.ctx, bit_offset, bit_size)
        # The holes over this part, its own offsets: a member partly there prints member by
        # member (gdb's {a = <optimized out>, b = 21}), one wholly gone as optimized out.
        holes = tuple((max(lo, offset) - offset, min(hi, offset + size) - offset)
                      for lo, hi in self._holes if lo < offset + size and offset < hi)  # fmt: skip
        if any(lo == 0 and hi >= size for lo, hi in holes):
            return Value(t, OptimizedOut(), self.ctx, bit_offset, bit_size)
        part = whole[offset : offset + size].ljust(size, b"\0")
        child.location = ImplicitLoc(part)
        child._data = part
        child._holes = holes
        return child

    def member_value(self, member: Member) -> Value:
        if member.offset is None:
            if member.location is None or self.address is None:
                raise EvaluationError(f"cannot locate member {member.name} (virtual base)")
            return Value(member.type, self._virtual_base(member.location), self.ctx)
        return self.sub_value(member.type, member.offset, member.bit_offset, member.bit_size)

    def _virtual_base(self, expr: bytes) -> MemoryLoc:
        # DWARF pushes the object's address before running the expression: as a DW_OP_const8u.
        assert self.address is not None
        start = b"\x0e" + (self.address & MASK64).to_bytes(8, "little")
        where = run_expression(start + expr, self.ctx, ExprEnv(load_bias=self.ctx.load_bias))
        if not isinstance(where, MemoryLoc):
            raise EvaluationError("cannot locate a virtual base")
        return where

    def element(self, index: int) -> Value:
        t = strip(self.type)
        if not isinstance(t, ArrayType):
            raise EvaluationError("cannot subscript something of type `%s'" % self.type)
        size = t.element.size
        return self.sub_value(t.element, index * size)

    def pointer_target(self) -> Value:
        """`*p` for a pointer or the referent of a reference."""
        t = strip(self.type)
        if not isinstance(t, (PointerType, ReferenceType)):
            raise EvaluationError("Attempt to take contents of a non-pointer value.")
        target = t.target
        if isinstance(strip(target), VoidType):
            raise EvaluationError("Attempt to take contents of a non-pointer value.")
        location = self.location
        if isinstance(location, OptimizedOut) and location.pointee is not None:  # a synthetic pointer
            return Value(target, location.pointee(), self.ctx)
        return Value(target, MemoryLoc(self.as_int() & MASK64), self.ctx)

    def find_member(self, name: str) -> Value | None:
        """Member `name`, searching base classes and anonymous structs/unions too."""
        return _find_member(self, name, 0)

    def with_type(self, t: Type) -> Value:
        """The same location read as another type (reinterpretation)."""
        return Value(t, self.location, self.ctx, self.bit_offset, self.bit_size)

    # --- writing ----------------------------------------------------------------------
    def assign_bytes(self, data: bytes) -> None:
        """Write `data` (already converted to this value's type) through the lvalue."""
        loc = self.location
        if self.bit_size:
            old = int.from_bytes(self.data(), "little")
            mask = ((1 << self.bit_size) - 1) << self.bit_offset
            new = (old & ~mask) | ((int.from_bytes(data, "little") << self.bit_offset) & mask)
            data = new.to_bytes(self.byte_size, "little")
        if isinstance(loc, MemoryLoc):
            try:
                self.ctx.write_memory(loc.address, data)
            except EvaluationError:
                raise
            except Exception as exc:
                raise MemoryError_(loc.address) from exc
        elif isinstance(loc, RegisterLoc):
            old_reg = self.ctx.register(loc.regno)
            if old_reg is None:
                raise EvaluationError("value is not available in this frame")
            shift, width = loc.offset * 8, len(data) * 8
            keep = old_reg & ~(((1 << width) - 1) << shift)
            try:
                self.ctx.write_register(loc.regno, keep | int.from_bytes(data, "little") << shift)
            except EvaluationError:
                raise
            except Exception as exc:
                raise EvaluationError(f"cannot write register {loc.regno}: {exc}") from exc
        else:
            raise EvaluationError("Left operand of assignment is not an lvalue.")
        self._data = data
        self._holes = ()


def _find_member(value: Value, name: str, depth: int) -> Value | None:
    t = strip(value.type)
    if not isinstance(t, StructType) or depth > 16:
        return None
    for member in t.members:
        if member.name == name and not member.is_base:
            return value.member_value(member)
    for static in t.statics:  # gdb's search_struct_field: a class's fields, static ones too
        if static.name == name:
            return static_value(value, static)
    for member in t.members:  # anonymous members and base classes
        if member.is_base or member.name is None:
            if member.offset is None and member.location is None:
                continue
            try:
                base = value.member_value(member)
            except EvaluationError:
                continue
            found = _find_member(base, name, depth + 1)
            if found is not None:
                return found
    return None


def _compose(
    loc: CompositeLoc, ctx: FrameContext, size: int
) -> tuple[bytes, tuple[tuple[int, int], ...]]:
    bits = 0
    pos = 0
    holes: list[tuple[int, int]] = []
    for piece in loc.pieces:
        n = piece.size_bits
        src = piece.location
        if isinstance(src, OptimizedOut):
            holes.append((pos // 8, (pos + n + 7) // 8))
            chunk = 0
        elif isinstance(src, MemoryLoc):
            nbytes = (piece.bit_offset + n + 7) // 8
            chunk = int.from_bytes(read(ctx, src.address, nbytes), "little") >> piece.bit_offset
        elif isinstance(src, RegisterLoc):
            reg = ctx.register(src.regno)
            if reg is None:
                holes.append((pos // 8, (pos + n + 7) // 8))
                reg = 0
            chunk = reg >> piece.bit_offset
        else:
            chunk = int.from_bytes(src.data, "little") >> piece.bit_offset
        bits |= (chunk & ((1 << n) - 1)) << pos
        pos += n
    if pos < size * 8:
        holes.append(((pos + 7) // 8, size))
    data = (bits & ((1 << (8 * size)) - 1)).to_bytes(size, "little") if size else b""
    return data, tuple(h for h in holes if h[0] < size)


def from_x87(data: bytes) -> float:
    mantissa = int.from_bytes(data[:8], "little")
    exp_sign = int.from_bytes(data[8:10], "little")
    sign = -1.0 if exp_sign >> 15 else 1.0
    exponent = exp_sign & 0x7FFF
    if exponent == 0x7FFF:
        return sign * float("inf") if (mantissa << 1) & MASK64 == 0 else math.copysign(float("nan"), sign)
    if exponent == 0 and mantissa == 0:
        return sign * 0.0
    try:
        return sign * float(mantissa) * 2.0 ** (exponent - 16383 - 63)
    except OverflowError:
        return sign * float("inf")


def _to_x87(value: float, size: int) -> bytes:
    if math.isnan(value):  # its sign kept (x86's 0.0 / 0 is negative)
        raw = ((0x7FFF | (0x8000 if math.copysign(1.0, value) < 0 else 0)) << 64) | 0xC000000000000000
    elif math.isinf(value):
        raw = ((0x7FFF | (0x8000 if value < 0 else 0)) << 64) | (1 << 63)
    elif value == 0:
        raw = (0x8000 << 64) if math.copysign(1.0, value) < 0 else 0
    else:
        m, e = math.frexp(abs(value))  # value = m * 2**e, 0.5 <= m < 1
        mantissa = int(m * (1 << 64))
        exponent = e - 1 + 16383
        raw = ((exponent | (0x8000 if value < 0 else 0)) << 64) | mantissa
    return raw.to_bytes(10, "little").ljust(size, b"\0")


def is_char_type(t: Type) -> bool:
    t = strip(t)
    return (
        isinstance(t, BaseType)
        and t.size == 1
        and t.encoding
        in (
            Encoding.SIGNED_CHAR,
            Encoding.UNSIGNED_CHAR,
            Encoding.UTF,
        )
    )


def is_enum(t: Type) -> bool:
    return isinstance(strip(t), EnumType)


# --- children ----------------------------------------------------------------------------
def child_count(value: Value) -> int:
    """How many children `children` would list (0 for scalars and strings)."""
    t = strip(value.type)
    if isinstance(t, StructType) and is_rust_enum(t):
        return len(_enum_fields(value, t))
    if isinstance(t, StructType):
        return len(t.fields_in_order())
    if isinstance(t, ArrayType):
        return t.count or 0
    if isinstance(t, (PointerType, ReferenceType)):
        target = strip(t.target)
        if isinstance(t, PointerType) and (
            isinstance(target, (VoidType, FunctionType)) or is_char_type(target)
        ):
            return 0
        if isinstance(t, PointerType):
            try:
                if value.as_int() == 0:
                    return 0
            except EvaluationError:
                return 0
        if isinstance(target, (StructType, ArrayType)) and isinstance(t, ReferenceType):
            return child_count(value.pointer_target())
        if isinstance(target, StructType):
            return child_count(value.pointer_target())
        return 1
    return 0


def children(value: Value, start: int = 0, count: int | None = None) -> list[tuple[str, Value]]:
    """(name, value) children: members (bases as `<Base>`), `[i]` elements (paged by `start`
    and `count`), a pointer's pointee members or `*`; built lazily, nothing read yet."""
    t = strip(value.type)
    if isinstance(t, StructType) and is_rust_enum(t):
        return _enum_fields(value, t)[start : None if count is None else start + count]
    if isinstance(t, StructType):
        members = t.fields_in_order()[start : None if count is None else start + count]
        out = []
        for m in members:
            if isinstance(m, StaticMember):  # gdb lists a class's statics among its fields
                out.append((m.name, static_value(value, m)))
                continue
            name = f"<{m.name}>" if m.is_base else (m.name or "<anonymous>")
            try:
                out.append((name, value.member_value(m)))
            except EvaluationError as exc:
                out.append((name, _error_value(m.type, value, str(exc))))
        return out
    if isinstance(t, ArrayType):
        total = t.count or 0
        end = total if count is None else min(total, start + count)
        return [(f"[{i}]", value.element(i)) for i in range(max(start, 0), end)]
    if isinstance(t, (PointerType, ReferenceType)) and child_count(value):
        target = value.pointer_target()
        if isinstance(strip(t.target), StructType) or isinstance(t, ReferenceType):
            if isinstance(t, ReferenceType) and not isinstance(
                strip(t.target), (StructType, ArrayType)
            ):
                return [("*", target)][start : None if count is None else start + count]
            return children(target, start, count)
        return [("*", target)][start : None if count is None else start + count]
    return []


def is_rust_enum(t: StructType) -> bool:
    """A Rust enum with data: no members of its own, a variant part."""
    return t.variants is not None and not t.members


def _enum_fields(value: Value, t: StructType) -> list[tuple[str, Value]]:
    """A Rust enum's fields as gdb resolves its type for a value: the discriminant
    (unnamed) and the active variant, named after it (`Some`, `Rect`); a variant's own
    fields are its children."""
    part = t.variants
    assert part is not None
    out: list[tuple[str, Value]] = []
    discr: int | None = None
    if part.discriminant is not None:
        tag = value.member_value(part.discriminant)
        out.append(("<anonymous>", tag))
        try:
            discr = tag.as_int()
        except EvaluationError:
            return out  # no variant is known to be active
    member = part.active(discr)
    if member is not None:
        out.append((member.name or "<anonymous>", value.member_value(member)))
    return out


def const_location(value: object, size: int) -> Location:
    """Where a DW_AT_const_value's value is: a number (data forms) or its bytes (a block:
    a double's, a struct's)."""
    if isinstance(value, int):
        size = max(size, 1)
        return ImplicitLoc((value & ((1 << (8 * size)) - 1)).to_bytes(size, "little"))
    if isinstance(value, (list, bytes)):
        return ImplicitLoc(bytes(value))
    return OptimizedOut()


def static_value(parent: Value, static: StaticMember) -> Value:
    """A static data member's value: its in-class constant, or its definition's memory."""
    if isinstance(static.const_value, int):
        return Value.of_int(static.type, static.const_value, parent.ctx)
    if static.const_value is not None:
        return Value(static.type, const_location(static.const_value, strip(static.type).size), parent.ctx)
    link = static.link_address()
    if link is None:
        return Value(static.type, OptimizedOut(), parent.ctx)
    return Value(static.type, MemoryLoc(link + parent.ctx.load_bias), parent.ctx)


def _error_value(t: Type, parent: Value, message: str) -> Value:
    return Value(t, OptimizedOut(message), parent.ctx)
