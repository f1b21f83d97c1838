"""Where a function's return value is right after it returns (System V x86-64 ABI).

Integers, pointers, enums and bools come back in rax; float and double in xmm0; structs
of up to 16 bytes in two eightbytes, each in the next free integer (rax, rdx) or SSE
(xmm0, xmm1) register depending on what it holds; larger ones in memory, rax pointing
at them. long double (x87) comes back in st0.
"""

from __future__ import annotations

from aliceserver.debuggers.arch.base import RegisterPiece, ReturnLocation
from aliceserver.debuggers.symbols.dwarf.member_functions import pass_by_reference
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    StructType,
    Type,
    VoidType,
    is_float,
    strip,
)

_INTEGER, _SSE = "integer", "sse"


def scalars(t: Type, offset: int) -> list[tuple[int, Type]]:
    """(offset, scalar type) of every scalar inside `t`, flattened."""
    t = strip(t)
    if isinstance(t, StructType):
        found: list[tuple[int, Type]] = []
        for member in t.members:
            found += scalars(member.type, offset + (member.offset or 0))
        return found
    if isinstance(t, ArrayType) and t.count:
        size = strip(t.element).size
        return [pair for i in range(t.count) for pair in scalars(t.element, offset + i * size)]
    return [(offset, t)]


def _classes(t: Type) -> list[str]:
    """The class of each eightbyte of a small aggregate."""
    eightbytes = [_SSE] * ((t.size + 7) // 8)
    for offset, scalar in scalars(t, 0):
        if not is_float(scalar):
            eightbytes[offset // 8] = _INTEGER
    return eightbytes


def return_location(t: Type) -> ReturnLocation:
    t = strip(t)
    if isinstance(t, VoidType):
        return ReturnLocation()
    size = t.size
    if isinstance(t, BaseType) and is_float(t) and size == 16:
        return ReturnLocation((RegisterPiece("st0", 10),))  # long double: x87, 10 bytes
    if isinstance(t, BaseType) and is_float(t):
        return ReturnLocation((RegisterPiece("xmm0", size),))
    if isinstance(t, (StructType, ArrayType)):
        if size > 16 or size == 0 or (isinstance(t, StructType) and pass_by_reference(t)):
            return ReturnLocation(in_memory=True, address_register="rax")
        integers, sses = ["rax", "rdx"], ["xmm0", "xmm1"]
        pieces = [RegisterPiece((integers if kind == _INTEGER else sses).pop(0), 8)
                  for kind in _classes(t)]  # fmt: skip
        last = size - 8 * (len(pieces) - 1)
        pieces[-1] = RegisterPiece(pieces[-1].register, last)
        return ReturnLocation(tuple(pieces))
    if size > 8:  # __int128: rax, then rdx
        return ReturnLocation((RegisterPiece("rax", 8), RegisterPiece("rdx", size - 8)))
    return ReturnLocation((RegisterPiece("rax", max(size, 1)),))
