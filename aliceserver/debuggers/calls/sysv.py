"""A call's plan by the System V x86-64 ABI (gdb's amd64_push_dummy_call).

Below the thread's stack pointer the 128-byte red zone is skipped, then come the result
buffer of a function returning in memory (its address in rdi) and the arguments passed on
the stack; rsp is 16-aligned at the call, and the return address pushed is the trap's.
Arguments go where ptrace/callabi.py says (rdi.., xmm0..); rax (al) holds how many vector
registers carry arguments (varargs callees read it), and orig_rax is -1 so that a system
call the thread was stopped in is not restarted by the kernel now (amd64_linux_write_pc).
"""

from __future__ import annotations

from collections.abc import Mapping

from aliceserver.debuggers.calls.plan import CallPlan, CallRequest
from aliceserver.debuggers.ptrace.callabi import plan_arguments, returns_in_memory
from aliceserver.debuggers.symbols.dwarf.types import BaseType, Encoding, Type, strip

RED_ZONE = 128
MASK64 = (1 << 64) - 1


def extend_integer(t: Type, data: bytes) -> int:
    """An integer argument's register value: small signed types sign-extended."""
    s = strip(t)
    value = int.from_bytes(data[:8], "little")
    if isinstance(s, BaseType) and s.encoding is Encoding.SIGNED and 0 < len(data) < 8:
        bits = 8 * len(data)
        value = ((value ^ (1 << (bits - 1))) - (1 << (bits - 1))) & MASK64
    return value


def plan_sysv(request: CallRequest, registers: Mapping[str, int], return_address: int) -> CallPlan:
    sp = (registers["rsp"] - RED_ZONE) & ~0xF
    result_address = None
    if returns_in_memory(request.returns):
        sp = (sp - strip(request.returns).size) & ~0xF
        result_address = sp
    params = [(f"arg{i}", t) for i, (t, _) in enumerate(request.arguments)]
    slots = plan_arguments(params, request.returns)
    stack_size = max(
        ((s.stack_offset - 8 + (len(data) + 7) // 8 * 8) for s, (_, data) in zip(slots, request.arguments, strict=True)
         if s.stack_offset is not None),
        default=0,
    )  # fmt: skip
    call_sp = (sp - stack_size) & ~0xF  # rsp at the call instruction: 16-aligned
    general: dict[str, int] = {}
    vectors: dict[str, bytes] = {}
    memory: list[tuple[int, bytes]] = []
    sse_used = 0
    for slot, (_, data) in zip(slots, request.arguments, strict=True):
        if slot.stack_offset is not None:
            memory.append((call_sp + slot.stack_offset - 8, data))
            continue
        padded = data.ljust(8 * len(slot.pieces), b"\0")
        for i, (kind, where) in enumerate(slot.pieces):
            piece = padded[8 * i : 8 * i + 8]
            if kind == "int":
                value = extend_integer(slot.type, data) if len(slot.pieces) == 1 else int.from_bytes(piece, "little")
                general[str(where)] = value
            else:
                vectors[f"xmm{int(where)}"] = piece.ljust(16, b"\0")
                sse_used = max(sse_used, int(where) + 1)
    if result_address is not None:
        general["rdi"] = result_address
    entry_sp = call_sp - 8
    memory.append((entry_sp, return_address.to_bytes(8, "little")))
    general.update(rsp=entry_sp, rip=request.address, rax=sse_used)
    if "orig_rax" in registers:
        general["orig_rax"] = MASK64  # -1
    return CallPlan(general, vectors, tuple(memory), return_address, entry_sp + 8, result_address)
