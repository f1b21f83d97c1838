"""fp_backtrace on synthetic stacks and on a stack a compiled program dumped of itself."""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aliceserver.debuggers.model import SymbolLocation
from aliceserver.debuggers.symbols.elf import PT_LOAD, ElfImage
from aliceserver.debuggers.symbols.fpunwind import fp_backtrace
from aliceserver.debuggers.symbols.process import ProcessSymbols
from aliceserver.errors import TargetError

STACK = 0x7FF000
CODE = 0x401000


class Memory:
    """Sparse memory: a few regions of bytes; reads outside them raise TargetError."""

    def __init__(self) -> None:
        self.regions: list[tuple[int, bytearray]] = []
        self.reads = 0

    def add(self, base: int, data: bytes) -> None:
        self.regions.append((base, bytearray(data)))

    def put_u64(self, address: int, value: int) -> None:
        for base, data in self.regions:
            if base <= address and address + 8 <= base + len(data):
                data[address - base : address - base + 8] = struct.pack("<Q", value)
                return
        raise AssertionError(f"{address:#x} is in no region")

    def __call__(self, address: int, size: int) -> bytes:
        self.reads += 1
        for base, data in self.regions:
            if base <= address and address + size <= base + len(data):
                return bytes(data[address - base : address - base + size])
        raise TargetError(f"unmapped {address:#x}")


# Functions of a pretend program: name -> (start, size); code bytes are NOPs unless set.
FUNCTIONS = {"inner": (0x401000, 0x40), "middle": (0x401040, 0x40), "outer": (0x401080, 0x40)}


def lookup(address: int) -> SymbolLocation:
    for name, (start, size) in FUNCTIONS.items():
        if start <= address < start + size:
            return SymbolLocation(address, name, address - start, "prog")
    return SymbolLocation(address, None, 0, None)


def _memory_with_chain() -> Memory:
    """inner (fp 0x7ff010) <- middle (fp 0x7ff040) <- outer (fp 0x7ff080, saved fp 0)."""
    memory = Memory()
    memory.add(STACK, bytes(0x200))
    memory.add(CODE, b"\x90" * 0x100)
    memory.put_u64(0x7FF010, 0x7FF040)
    memory.put_u64(0x7FF018, 0x401050)  # into middle
    memory.put_u64(0x7FF040, 0x7FF080)
    memory.put_u64(0x7FF048, 0x401090)  # into outer
    memory.put_u64(0x7FF080, 0)
    memory.put_u64(0x7FF088, 0x4010C8)  # into something unknown
    return memory


def _names(frames: list[Any]) -> list[str | None]:
    return [f.symbol.name for f in frames]


def test_chain() -> None:
    frames = fp_backtrace(_memory_with_chain(), 0x401010, 0x7FF000, 0x7FF010, lookup)
    assert [(f.level, f.pc, f.sp, f.fp) for f in frames] == [
        (0, 0x401010, 0x7FF000, 0x7FF010),
        (1, 0x401050, 0x7FF020, 0x7FF040),
        (2, 0x401090, 0x7FF050, 0x7FF080),
        (3, 0x4010C8, 0x7FF090, 0),
    ]
    assert _names(frames) == ["inner", "middle", "outer", None]
    assert frames[1].symbol == SymbolLocation(0x401050, "middle", 0x10, "prog")


def test_caller_named_by_its_call_instruction() -> None:
    memory = _memory_with_chain()
    memory.put_u64(0x7FF018, 0x401080)  # returns just past the end of middle (noreturn call)
    frames = fp_backtrace(memory, 0x401010, 0x7FF000, 0x7FF010, lookup)
    assert frames[1].symbol == SymbolLocation(0x401080, "middle", 0x40, "prog")


def test_limit() -> None:
    memory = _memory_with_chain()
    assert len(fp_backtrace(memory, 0x401010, 0x7FF000, 0x7FF010, lookup, limit=2)) == 2
    assert fp_backtrace(memory, 0x401010, 0x7FF000, 0x7FF010, lookup, limit=0) == []


def test_stops_at_a_self_loop() -> None:
    memory = _memory_with_chain()
    memory.put_u64(0x7FF040, 0x7FF040)  # middle's saved fp points at itself
    frames = fp_backtrace(memory, 0x401010, 0x7FF000, 0x7FF010, lookup)
    assert _names(frames) == ["inner", "middle", "outer"]


def test_stops_at_a_descending_frame_pointer() -> None:
    memory = _memory_with_chain()
    memory.put_u64(0x7FF040, 0x7FF010)  # a cycle back to inner's frame
    frames = fp_backtrace(memory, 0x401010, 0x7FF000, 0x7FF010, lookup)
    assert _names(frames) == ["inner", "middle", "outer"]
    assert memory.reads < 20


def test_stops_at_unreadable_and_zero() -> None:
    memory = _memory_with_chain()
    assert len(fp_backtrace(memory, 0x401010, 0x7FF000, 0x9000_0000, lookup)) == 1
    assert len(fp_backtrace(memory, 0x401010, 0x7FF000, 0, lookup)) == 1
    assert len(fp_backtrace(memory, 0x401010, 0x7FF000, 0x7FF011, lookup)) == 1  # misaligned
    assert len(fp_backtrace(memory, 0x401010, 0x7FF100, 0x7FF010, lookup)) == 1  # fp below sp
    memory.put_u64(0x7FF048, 0)  # a zero return address ends the chain
    assert _names(fp_backtrace(memory, 0x401010, 0x7FF000, 0x7FF010, lookup)) == [
        "inner",
        "middle",
    ]


def test_unreadable_code_and_stack_at_the_top() -> None:
    memory = Memory()
    frames = fp_backtrace(memory, 0x401010, 0xFFFF_FFFF_FFFF_FFF8, 0xFFFF_FFFF_FFFF_FFF8, lookup)
    assert len(frames) == 1


def _at_entry_memory(code: bytes, at: int) -> Memory:
    """Stack for `inner` before its frame exists: [0x7ff008] = return into middle."""
    memory = _memory_with_chain()
    memory.put_u64(0x7FF008, 0x401050)
    memory.regions[1][1][at - CODE : at - CODE + len(code)] = code
    return memory


@pytest.mark.parametrize(
    ("code", "pc"),
    [
        (b"\x90", 0x401000),  # the first byte of a function: nothing has run yet
        (b"\x55\x48\x89\xe5", 0x401004),  # push rbp not run yet
        (b"\xf3\x0f\x1e\xfa", 0x401004),  # endbr64
        (b"\xc3", 0x401030),  # ret: the frame is gone already
        (b"\xf3\xc3", 0x401030),  # repz ret
    ],
)
def test_frame_zero_before_its_prologue(code: bytes, pc: int) -> None:
    memory = _at_entry_memory(code, pc)
    # rbp still holds middle's frame pointer.
    frames = fp_backtrace(memory, pc, 0x7FF008, 0x7FF040, lookup)
    assert [(f.pc, f.sp, f.fp) for f in frames[:3]] == [
        (pc, 0x7FF008, 0x7FF040),
        (0x401050, 0x7FF010, 0x7FF040),
        (0x401090, 0x7FF050, 0x7FF080),
    ]
    assert _names(frames) == ["inner", "middle", "outer", None]


def test_frame_zero_between_push_and_mov() -> None:
    memory = _at_entry_memory(b"\x55\x48\x89\xe5", 0x401000)
    memory.put_u64(0x7FF000, 0x7FF040)  # the pushed rbp; [0x7ff008] is the return address
    frames = fp_backtrace(memory, 0x401001, 0x7FF000, 0x7FF040, lookup)
    assert [(f.pc, f.sp, f.fp) for f in frames[:2]] == [
        (0x401001, 0x7FF000, 0x7FF040),
        (0x401050, 0x7FF010, 0x7FF040),
    ]
    assert _names(frames) == ["inner", "middle", "outer", None]


def test_mov_rbp_rsp_without_a_push_is_not_a_prologue() -> None:
    memory = _memory_with_chain()
    memory.regions[1][1][0x10:0x13] = b"\x48\x89\xe5"
    frames = fp_backtrace(memory, 0x401010, 0x7FF000, 0x7FF010, lookup)
    assert _names(frames) == ["inner", "middle", "outer", None]  # the normal chain


@settings(max_examples=300, deadline=None)
@given(
    st.binary(min_size=0x200, max_size=0x200),
    st.integers(0, 0x1FF),
    st.integers(0, 0x1FF),
    st.integers(1, 64),
)
def test_garbage_stacks_terminate(stack: bytes, sp_off: int, fp_off: int, limit: int) -> None:
    memory = Memory()
    memory.add(STACK, stack)
    memory.add(CODE, stack[:0x100])
    frames = fp_backtrace(memory, CODE, STACK + sp_off, STACK + fp_off, lookup, limit=limit)
    assert 1 <= len(frames) <= limit
    sps = [f.sp for f in frames]
    assert sps == sorted(set(sps))  # strictly rising: the walk always moves outwards
    assert [f.level for f in frames] == list(range(len(frames)))


DUMP_C = r"""
#include <stdint.h>
#include <stdio.h>
static uintptr_t main_frame;
__attribute__((noinline)) void dump(void) {
    uintptr_t pc, sp, fp;
    __asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
                     : "=r"(pc), "=r"(sp), "=r"(fp));
    uintptr_t header[4] = {pc, sp, fp, main_frame + 16 - sp};
    fwrite(header, sizeof header, 1, stdout);
    fwrite((void *)sp, 1, header[3], stdout);
}
__attribute__((noinline)) void c(void) { dump(); }
__attribute__((noinline)) void b(void) { c(); }
__attribute__((noinline)) void a(void) { b(); }
int main(void) {
    main_frame = (uintptr_t)__builtin_frame_address(0);
    a();
    return 0;
}
"""


def _dumped_stack(ctools: Any) -> tuple[Path, Memory, tuple[int, int, int]]:
    program: Path = ctools.build(
        DUMP_C, "-O0", "-fno-omit-frame-pointer", "-no-pie", name="stackdump"
    )
    out = subprocess.run([str(program)], capture_output=True, check=True, timeout=30).stdout
    pc, sp, fp, size = struct.unpack_from("<4Q", out)
    memory = Memory()
    memory.add(sp, out[32 : 32 + size])
    image = ElfImage.load(str(program))
    data = program.read_bytes()
    for seg in image.segments:  # the code, for the prologue checks
        if seg.type == PT_LOAD:
            memory.add(seg.vaddr, data[seg.offset : seg.offset + seg.filesz])
    return program, memory, (pc, sp, fp)


def test_a_real_stack(ctools: Any) -> None:
    program, memory, (pc, sp, fp) = _dumped_stack(ctools)
    symbols = ProcessSymbols()
    symbols.set_main(str(program), 0)
    frames = fp_backtrace(memory, pc, sp, fp, symbols.lookup_address)
    assert _names(frames)[:5] == ["dump", "c", "b", "a", "main"]
    assert all(f.symbol.offset > 0 for f in frames[:5])

    # The same stack seen from the first byte of c, and from just after its `push rbp`.
    c_fp = frames[1].fp
    b_fp = frames[2].fp
    c_start = symbols.lookup_name("c")
    assert c_start is not None
    assert memory(c_start, 1) == b"\x55"  # -O0 without CET starts with push rbp
    at_entry = fp_backtrace(memory, c_start, c_fp + 8, b_fp, symbols.lookup_address)
    assert _names(at_entry)[:4] == ["c", "b", "a", "main"]
    after_push = fp_backtrace(memory, c_start + 1, c_fp, b_fp, symbols.lookup_address)
    assert _names(after_push)[:4] == ["c", "b", "a", "main"]
    assert after_push[1].fp == b_fp
