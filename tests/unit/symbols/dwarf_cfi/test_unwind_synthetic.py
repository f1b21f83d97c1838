"""unwind_stack without CFI, on synthetic memory: signal frames recognised by their code,
frame-pointer fallback, and every stop condition (pc 0, loops, unreadable memory, limit)."""

from __future__ import annotations

import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from aliceserver.debuggers.model import Module
from aliceserver.debuggers.symbols.dwarf.cfi import CfiTable, unwind_stack
from aliceserver.debuggers.symbols.dwarf.unwind import GREG_NAMES, SIGRETURN_CODE, UCONTEXT_GREGS
from aliceserver.debuggers.symbols.process import ProcessSymbols
from aliceserver.errors import TargetError

CODE = 0x500000
STACK = 0x7FF000


class Memory:
    def __init__(self) -> None:
        self.regions: list[tuple[int, bytearray]] = [
            (CODE, bytearray(b"\x90" * 0x1000)),
            (STACK, bytearray(0x2000)),
        ]

    def put(self, address: int, data: bytes) -> None:
        for base, region in self.regions:
            if base <= address and address + len(data) <= base + len(region):
                region[address - base : address - base + len(data)] = data
                return
        raise AssertionError(f"{address:#x} is in no region")

    def put_u64(self, address: int, value: int) -> None:
        self.put(address, struct.pack("<Q", value))

    def __call__(self, address: int, size: int) -> bytes:
        for base, region in self.regions:
            if base <= address and address + size <= base + len(region):
                return bytes(region[address - base : address - base + size])
        raise TargetError(f"unmapped {address:#x}")


def no_tables(module: Module) -> CfiTable | None:
    return None


def unwind(registers: dict[str, int], memory: Memory, limit: int = 256) -> list:  # type: ignore[type-arg]
    return unwind_stack(registers, memory, ProcessSymbols(), no_tables, limit)


def fp_chain(memory: Memory, depth: int) -> int:
    """`depth` frames linked by rbp, returning to CODE+0x100+i; the outermost rbp is 0."""
    fps = [STACK + 0x100 + 0x40 * i for i in range(depth)]
    for i, fp in enumerate(fps):
        memory.put_u64(fp, fps[i + 1] if i + 1 < depth else 0)
        memory.put_u64(fp + 8, CODE + 0x100 + i)
    return fps[0]


def test_signal_trampoline_recognised_by_its_code() -> None:
    memory = Memory()
    memory.put(CODE + 0x40, SIGRETURN_CODE)
    sp = STACK + 0x200
    gregs = {name: 0x1000 + i for i, name in enumerate(GREG_NAMES)}
    fp = fp_chain(memory, 2)
    gregs.update(rip=CODE + 0x80, rsp=STACK + 0x80, rbp=fp)
    for i, name in enumerate(GREG_NAMES):
        memory.put_u64(sp + UCONTEXT_GREGS + 8 * i, gregs[name])
    frames = unwind({"rip": CODE + 0x40, "rsp": sp, "rbp": 7, "rax": 1}, memory)
    assert frames[0].signal_trampoline and frames[0].symbol.name == "__restore_rt"
    interrupted = frames[1]
    assert (interrupted.pc, interrupted.method, interrupted.cfa) == (CODE + 0x80, "signal", fp + 16)
    assert dict(interrupted.registers) == gregs
    assert frames[0].cfa == STACK + 0x80
    # The interrupted frame's caller comes from its frame pointer.
    assert [(f.pc, f.method) for f in frames[2:]] == [
        (CODE + 0x100, "frame-pointer"),
        (CODE + 0x101, "frame-pointer"),
    ]


def test_frame_pointer_fallback_and_caller_clobbered_registers() -> None:
    memory = Memory()
    fp = fp_chain(memory, 3)
    regs = {"rip": CODE, "rsp": STACK + 0x80, "rbp": fp, "rax": 5, "rbx": 6, "fs_base": 9}
    frames = unwind(regs, memory)
    assert [f.pc for f in frames] == [CODE, CODE + 0x100, CODE + 0x101, CODE + 0x102]
    assert frames[0].method == "first" and frames[0].registers["rax"] == 5
    assert "rax" not in frames[1].registers
    assert frames[1].registers["rbx"] == 6 and frames[1].registers["fs_base"] == 9
    assert frames[1].registers["rsp"] == fp + 16
    assert [f.level for f in frames] == [0, 1, 2, 3]


def test_loops_stop() -> None:
    memory = Memory()
    fp = STACK + 0x100
    memory.put_u64(fp, fp)  # the saved rbp points at itself
    memory.put_u64(fp + 8, CODE + 0x10)
    frames = unwind({"rip": CODE, "rsp": STACK + 0x80, "rbp": fp}, memory)
    assert len(frames) <= 3


def test_pc_zero_and_unreadable_memory_stop() -> None:
    memory = Memory()
    fp = STACK + 0x100
    memory.put_u64(fp + 8, 0)
    assert len(unwind({"rip": CODE, "rsp": STACK + 0x80, "rbp": fp}, memory)) == 1
    frames = unwind({"rip": CODE, "rsp": 0x10, "rbp": 0x20}, memory)
    assert [f.pc for f in frames] == [CODE]


def test_limit() -> None:
    memory = Memory()
    fp = fp_chain(memory, 10)
    regs = {"rip": CODE, "rsp": STACK + 0x80, "rbp": fp}
    assert len(unwind(regs, memory, limit=3)) == 3
    assert unwind(regs, memory, limit=0) == []
    assert unwind({}, memory) == []


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=0x200, max_size=0x200), st.integers(0, 0x1F8), st.integers(0, 0x1F8))
def test_random_stacks_terminate(stack: bytes, sp: int, fp: int) -> None:
    memory = Memory()
    memory.put(STACK, stack)
    frames = unwind({"rip": CODE, "rsp": STACK + sp, "rbp": STACK + fp}, memory)
    assert 1 <= len(frames) <= 256
