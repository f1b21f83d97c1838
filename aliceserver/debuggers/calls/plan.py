"""A call into the program as a plan: the registers to set, the bytes to write below the
stack pointer (arguments passed in memory, a result buffer, a pushed return address), and
where the function returns to and with which stack pointer. Pure: it reads the calling
thread's registers and the Architecture, and writes nothing; a backend applies it
(driver.py's CallThread). The ABI of each architecture is its own module (sysv.py for
x86-64, aapcs64.py for aarch64)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from aliceserver.debuggers.arch.base import Architecture
from aliceserver.debuggers.model import VectorRegisters
from aliceserver.debuggers.source.retvalue import return_bytes, return_value_of
from aliceserver.debuggers.symbols.dwarf.types import Type, VoidType, strip
from aliceserver.errors import TargetError

X86_64_NAME, AARCH64_NAME = "i386:x86-64", "aarch64"


@dataclass(frozen=True, slots=True)
class CallRequest:
    name: str  # as gdb names the function in its messages
    address: int
    arguments: tuple[tuple[Type, bytes], ...]  # each as its parameter's type holds it
    returns: Type  # VoidType for none


@dataclass(frozen=True, slots=True)
class CallPlan:
    general: Mapping[str, int]  # general registers by gdb name, pc and sp among them
    vectors: Mapping[str, bytes]  # whole vector registers (xmm0, v0: 16 bytes each)
    memory: tuple[tuple[int, bytes], ...]  # (address, bytes) to write before the call
    return_address: int  # where the function returns to: the return trap
    sp_after_return: int  # the stack pointer there when this call (not a nested one) returned
    result_address: int | None  # the buffer of a result returned in memory


def plan_call(arch: Architecture, request: CallRequest, registers: Mapping[str, int], return_address: int) -> CallPlan:
    """The plan of `request` on a thread whose general registers are `registers`."""
    if arch.name == X86_64_NAME:
        from aliceserver.debuggers.calls.sysv import plan_sysv

        return plan_sysv(request, registers, return_address)
    if arch.name == AARCH64_NAME:
        from aliceserver.debuggers.calls.aapcs64 import plan_aapcs64

        return plan_aapcs64(request, registers, return_address)
    raise TargetError("This target does not support function calls.")  # gdb's words


def returned_bytes(
    arch: Architecture,
    returns: Type,
    plan: CallPlan,
    general: Mapping[str, int],
    vectors: Callable[[], VectorRegisters | None],
    floats: Callable[[], Mapping[int, bytes]],
    read: Callable[[int, int], bytes],
) -> bytes:
    """The value the function returned, right after its return: from its registers as the
    ABI says (x87/SSE `vectors` on x86-64, v0-v3 by DWARF number in `floats` on aarch64),
    or from the result buffer the plan passed."""
    t = strip(returns)
    if isinstance(t, VoidType):
        return b""
    if plan.result_address is not None:
        return read(plan.result_address, t.size)
    if arch.name == X86_64_NAME:
        data, address = return_bytes(returns, general, vectors(), arch)
    else:
        data, address = return_value_of(returns, arch, general, floats())
    if data is None and address is not None:
        return read(address, t.size)
    return data or b""
