"""Where a function's arguments are at its first instruction (System V x86-64 ABI).

At the entry, before the prologue, the DWARF locations of -O0 code (frame-base offsets)
mean nothing yet, but the ABI says exactly where each argument is: integers and pointers
in rdi, rsi, rdx, rcx, r8, r9; float and double in xmm0-7; small structs split in
eightbytes over both; the rest (large structs, long double, what no longer fits in
registers) on the stack from rsp + 8. A function returning a large struct takes the
address of its result in rdi first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from aliceserver.debuggers.source.retvalue import _classes
from aliceserver.debuggers.symbols.dwarf.member_functions import pass_by_reference
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    EnumType,
    PointerType,
    ReferenceType,
    StructType,
    Type,
    is_float,
    strip,
)
from aliceserver.debuggers.symbols.dwarf.values import is_char_type

INTEGER_REGISTERS = ("rdi", "rsi", "rdx", "rcx", "r8", "r9")
_SSE_REGISTERS = 8
_MASK64 = (1 << 64) - 1


@dataclass(frozen=True, slots=True)
class ArgumentSlot:
    """One argument: its eightbytes in registers (("int", "rdi") / ("sse", 0)), or on the
    stack at `stack_offset` from the entry's rsp."""

    name: str
    type: Type
    pieces: tuple[tuple[str, str | int], ...] = ()
    stack_offset: int | None = None
    fast: Callable[[int], str] | None = None  # formats a one-register scalar from its bits


def _is_memory_class(t: Type) -> bool:
    t = strip(t)
    if isinstance(t, BaseType) and is_float(t) and t.size > 8:
        return True  # long double: x87 class, passed in memory
    if isinstance(t, (StructType, ArrayType)):
        return t.size > 16 or t.size == 0
    return False


def returns_in_memory(t: Type | None) -> bool:
    """Whether the caller passes a hidden result pointer in rdi."""
    if t is None:
        return False
    t = strip(t)
    if isinstance(t, StructType) and pass_by_reference(t):
        return True  # non-trivial for the purposes of calls (Itanium C++ ABI), even if small
    return isinstance(t, (StructType, ArrayType)) and t.size > 16


def plan_arguments(params: list[tuple[str, Type]], returns: Type | None) -> list[ArgumentSlot]:
    integers = list(INTEGER_REGISTERS[1:] if returns_in_memory(returns) else INTEGER_REGISTERS)
    sse = 0
    stack = 8  # rsp points at the return address
    slots = []
    for name, t in params:
        s = strip(t)
        classes: list[str] = []
        if not _is_memory_class(s):
            if isinstance(s, (StructType, ArrayType)):
                classes = _classes(s)
            elif isinstance(s, BaseType) and s.encoding is Encoding.COMPLEX:
                classes = ["sse"] * ((s.size + 7) // 8) if s.size <= 16 else []
            elif is_float(s):
                classes = ["sse"]
            else:
                classes = ["integer"] * max(1, (s.size + 7) // 8)
        wanted_int = classes.count("integer")
        wanted_sse = len(classes) - wanted_int
        if classes and wanted_int <= len(integers) and sse + wanted_sse <= _SSE_REGISTERS:
            pieces: list[tuple[str, str | int]] = []
            for kind in classes:
                if kind == "integer":
                    pieces.append(("int", integers.pop(0)))
                else:
                    pieces.append(("sse", sse))
                    sse += 1
            fast = _fast_scalar(s) if len(pieces) == 1 and pieces[0][0] == "int" else None
            slots.append(ArgumentSlot(name, t, tuple(pieces), fast=fast))
            continue
        align = 16 if s.size > 8 and isinstance(s, BaseType) else 8
        stack = (stack + align - 1) // align * align
        slots.append(ArgumentSlot(name, t, stack_offset=stack))
        stack += (max(s.size, 1) + 7) // 8 * 8
    return slots


def _fast_scalar(t: Type) -> Callable[[int], str] | None:
    """A formatter for plain integers and data pointers straight from register bits (the
    common case, at every traced call: the general value formatter costs ten times more)."""
    if isinstance(t, BaseType) and t.encoding in (Encoding.SIGNED, Encoding.UNSIGNED) and t.size in (1, 2, 4, 8):
        bits = 8 * t.size
        mask = (1 << bits) - 1
        if t.encoding is Encoding.UNSIGNED:
            return lambda raw: str(raw & mask)
        sign = 1 << (bits - 1)
        return lambda raw: str(((raw & mask) ^ sign) - sign)
    if isinstance(t, PointerType):
        target = strip(t.target)
        if is_char_type(target) or not isinstance(target, (BaseType, StructType, PointerType, EnumType)):
            return None  # strings and function pointers: the general formatter names them
        return lambda raw: hex(raw & _MASK64)
    if isinstance(t, ReferenceType):
        return None
    return None


def fast_scalar(t: Type | None) -> Callable[[int], str] | None:
    """The same, for a return value in rax."""
    return None if t is None else _fast_scalar(strip(t))
