"""A call's plan by the AAPCS64 (gdb's aarch64_push_dummy_call).

Integers, pointers and composites of up to 16 bytes go in x0-x7 (a 16-byte aligned one
from an even register), floating-point values and homogeneous floating-point aggregates
(one to four members of one floating type, complex numbers too) in v0-v7, member by
member; composites larger than 16 bytes are copied to the stack and passed by address;
what no longer fits in registers goes on the stack from sp up, in 8-byte slots (16 for
16-byte aligned types), and once a kind of register runs out, every later argument of
that kind does too. A result returned in memory goes to a buffer whose address is in x8.
sp is 16-aligned (the ABI has no red zone), and the return address is in x30: the trap's.
"""

from __future__ import annotations

from collections.abc import Mapping

from aliceserver.debuggers.arch.aapcs64 import homogeneous_float_members
from aliceserver.debuggers.arch.sysv import scalars
from aliceserver.debuggers.calls.plan import CallPlan, CallRequest
from aliceserver.debuggers.calls.sysv import extend_integer
from aliceserver.debuggers.symbols.dwarf.member_functions import pass_by_reference
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    StructType,
    Type,
    is_float,
    strip,
)

_REGISTERS = 8  # x0-x7, v0-v7


def _returns_in_memory(t: Type) -> bool:
    t = strip(t)
    if homogeneous_float_members(t) is not None:
        return False
    if isinstance(t, StructType) and pass_by_reference(t):
        return True
    return isinstance(t, (StructType, ArrayType)) and t.size > 16


def _alignment(t: Type) -> int:
    """Natural alignment, as far as it matters here: 16 for 16-byte scalars inside."""
    return 16 if any(strip(s).size == 16 for _, s in scalars(t, 0)) else 8


class _Arguments:
    def __init__(self, sp: int) -> None:
        self.sp = sp  # where by-reference copies go, downwards
        self.general: dict[str, int] = {}
        self.vectors: dict[str, bytes] = {}
        self.copies: list[tuple[int, bytes]] = []
        self.stacked: list[tuple[int, bytes]] = []  # (offset from the call's sp, bytes)
        self.ngrn = 0
        self.nsrn = 0
        self.nsaa = 0

    def on_stack(self, data: bytes, align: int) -> None:
        self.nsaa = (self.nsaa + align - 1) // align * align
        self.stacked.append((self.nsaa, data))
        self.nsaa += (max(len(data), 1) + 7) // 8 * 8

    def add(self, t: Type, data: bytes) -> None:
        s = strip(t)
        members = homogeneous_float_members(s)
        if members is None and isinstance(s, BaseType) and is_float(s):
            members = [s.size]
        if members is not None:
            if self.nsrn + len(members) <= _REGISTERS:
                offset = 0
                for size in members:
                    self.vectors[f"v{self.nsrn}"] = data[offset : offset + size].ljust(16, b"\0")
                    self.nsrn += 1
                    offset += size
                return
            self.nsrn = _REGISTERS
            self.on_stack(data, _alignment(s))
            return
        if isinstance(s, (StructType, ArrayType)) and s.size > 16:
            self.sp = (self.sp - len(data)) & ~0xF  # a copy, passed by its address
            self.copies.append((self.sp, data))
            data, s = self.sp.to_bytes(8, "little"), BaseType("unsigned long", 8, Encoding.UNSIGNED)
        words = max(1, (len(data) + 7) // 8)
        if words == 2 and _alignment(s) == 16:
            self.ngrn += self.ngrn % 2
        if self.ngrn + words <= _REGISTERS:
            if words == 1:
                self.general[f"x{self.ngrn}"] = extend_integer(t, data) if isinstance(s, BaseType) else \
                    int.from_bytes(data[:8], "little")  # fmt: skip
                self.ngrn += 1
                return
            padded = data.ljust(8 * words, b"\0")
            for i in range(words):
                self.general[f"x{self.ngrn}"] = int.from_bytes(padded[8 * i : 8 * i + 8], "little")
                self.ngrn += 1
            return
        self.ngrn = _REGISTERS
        self.on_stack(data, _alignment(s))


def plan_aapcs64(request: CallRequest, registers: Mapping[str, int], return_address: int) -> CallPlan:
    sp = registers["sp"] & ~0xF
    result_address = None
    if _returns_in_memory(request.returns):
        sp = (sp - strip(request.returns).size) & ~0xF
        result_address = sp
    arguments = _Arguments(sp)
    for t, data in request.arguments:
        arguments.add(t, data)
    call_sp = (arguments.sp - arguments.nsaa) & ~0xF
    memory = [*arguments.copies, *((call_sp + offset, data) for offset, data in arguments.stacked)]
    general = dict(arguments.general)
    if result_address is not None:
        general["x8"] = result_address
    general.update(sp=call_sp, pc=request.address, x30=return_address)
    return CallPlan(general, arguments.vectors, tuple(memory), return_address, call_sp, result_address)
