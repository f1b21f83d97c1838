"""Where a function's return value is right after it returns (System V x86-64 ABI).

Integers, pointers, enums and bools come back in rax; float and double in xmm0; structs
of up to 16 bytes in two eightbytes, each in the next free integer (rax, rdx) or SSE
(xmm0, xmm1) register depending on what it holds; larger ones in memory, rax pointing
at them. long double (x87) comes back in st0.
"""

from __future__ import annotations

from typing import Mapping

from aliceserver.debuggers.model import VectorRegisters
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


def _scalars(t: Type, offset: int) -> list[tuple[int, Type]]:
    """(offset, scalar type) of every scalar inside `t`, flattened."""
    t = strip(t)
    if isinstance(t, StructType):
        found: list[tuple[int, Type]] = []
        for member in t.members:
            found += _scalars(member.type, offset + (member.offset or 0))
        return found
    if isinstance(t, ArrayType) and t.count:
        size = strip(t.element).size
        return [pair for i in range(t.count) for pair in _scalars(t.element, offset + i * size)]
    return [(offset, t)]


def _classes(t: Type) -> list[str]:
    """The class of each eightbyte of a small aggregate."""
    eightbytes = [_SSE] * ((t.size + 7) // 8)
    for offset, scalar in _scalars(t, 0):
        if not is_float(scalar):
            eightbytes[offset // 8] = _INTEGER
    return eightbytes


def return_bytes(
    t: Type,
    registers: Mapping[str, int],
    vectors: VectorRegisters | None,
) -> tuple[bytes | None, int | None]:
    """(the value's bytes, or None) and (its memory address, for large aggregates)."""
    t = strip(t)
    if isinstance(t, VoidType):
        return None, None
    size = t.size
    if isinstance(t, BaseType) and is_float(t) and size == 16 and vectors is not None:
        return vectors.st[0] + bytes(6), None  # long double: x87 st0, 10 significant bytes
    if isinstance(t, BaseType) and is_float(t):
        return (vectors.xmm[0][:size] if vectors is not None else None), None
    if isinstance(t, StructType) or isinstance(t, ArrayType):
        if size > 16 or size == 0 or (isinstance(t, StructType) and pass_by_reference(t)):
            return None, registers.get("rax")  # in memory: rax holds its address
        integers = [registers.get("rax", 0), registers.get("rdx", 0)]
        sses = [v[:8] for v in vectors.xmm[:2]] if vectors is not None else [bytes(8)] * 2
        data = b""
        for kind in _classes(t):
            if kind == _INTEGER:
                data += integers.pop(0).to_bytes(8, "little")
            else:
                data += sses.pop(0)
        return data[:size], None
    return registers.get("rax", 0).to_bytes(8, "little")[: max(size, 1)], None
