"""Where a function's return value is right after it returns (AAPCS64, 6.9).

Integers and pointers up to 16 bytes come back in x0 (and x1); floating-point values in
v0 (float s0, double d0, long double q0); a homogeneous floating-point aggregate (one to
four members of one floating type, complex numbers too) member by member in v0-v3;
other composites up to 16 bytes in x0-x1 as they lie in memory; larger ones in memory
the caller passed in x8 (gdb's aarch64_return_value reads x8 after the return too).
"""

from __future__ import annotations

from aliceserver.debuggers.arch.base import RegisterPiece, ReturnLocation
from aliceserver.debuggers.arch.sysv import scalars
from aliceserver.debuggers.symbols.dwarf.member_functions import pass_by_reference
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    StructType,
    Type,
    VoidType,
    is_float,
    strip,
)

_HFA_MEMBERS = 4


def homogeneous_float_members(t: Type) -> list[int] | None:
    """The member sizes of a homogeneous floating-point aggregate (or complex number),
    None for anything else."""
    t = strip(t)
    if isinstance(t, BaseType) and t.encoding is Encoding.COMPLEX:
        return [t.size // 2] * 2
    if not isinstance(t, (StructType, ArrayType)) or t.size == 0:
        return None
    members = scalars(t, 0)
    sizes = {strip(scalar).size for _, scalar in members}
    if not 1 <= len(members) <= _HFA_MEMBERS or len(sizes) != 1:
        return None
    if not all(isinstance(strip(s), BaseType) and is_float(strip(s)) for _, s in members):
        return None
    size = sizes.pop()
    return [size] * len(members) if size * len(members) == t.size else None


def return_location(t: Type) -> ReturnLocation:
    t = strip(t)
    if isinstance(t, VoidType):
        return ReturnLocation()
    size = t.size
    members = homogeneous_float_members(t)
    if members is not None:
        return ReturnLocation(tuple(RegisterPiece(f"v{i}", s) for i, s in enumerate(members)))
    if isinstance(t, BaseType) and is_float(t):
        return ReturnLocation((RegisterPiece("v0", size),))
    if isinstance(t, (StructType, ArrayType)):
        if size > 16 or (isinstance(t, StructType) and pass_by_reference(t)):
            return ReturnLocation(in_memory=True, address_register="x8")
    if size > 8:
        return ReturnLocation((RegisterPiece("x0", 8), RegisterPiece("x1", size - 8)))
    return ReturnLocation((RegisterPiece("x0", max(size, 1)),))
