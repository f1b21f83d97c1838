"""Trampolines of traced functions: a call or return record into the thread's ring, then on.

An entry trampoline (the patch at a function's first instruction jumps to it) writes a
CALL record and then runs the displaced instructions, relocated, and jumps back after the
span. A return trampoline serves a patch whose span ends with one of the function's `ret`:
it runs the instructions before the ret (relocated), writes a RETURN record with the
registers as they are at the ret, and executes the ret itself. Either way the record is
(trace_rings.py) header, rdtsc, the CFA (rsp + 8 at the entry or at the ret: the same
address for one call, so the server pairs them), and the values asked for.

The trampoline keeps every register and flag of the program: it moves rsp below the red
zone, saves rflags, rax, rcx, rdx and r11 (all it uses), and puts them back. It makes no
call. Its only system call is the gettid of a thread's first record, to name its ring.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from aliceserver.debuggers.ptrace.patches.emitter import (
    R8,
    R9,
    R10,
    R11,
    R12,
    R13,
    R14,
    R15,
    RAX,
    RBP,
    RBX,
    RCX,
    RDI,
    RDX,
    RSI,
    RSP,
    Assembler,
    Label,
)
from aliceserver.debuggers.ptrace.patches.trace_rings import (
    CALL,
    HEAD,
    MASK,
    RELEASED,
    RETURN,
    RING_HEADER,
    TAIL,
    TID,
    RingLayout,
    header_word,
    slots_for,
)

RED_ZONE: Final = 128
_SAVED: Final = {"r11": 0, "rdx": 8, "rcx": 16, "rax": 24}  # from rsp once pushed, flags at 32
_PROGRAM_RSP: Final = 40 + RED_ZONE  # the program's rsp, from ours
_NUMBERS: Final = {
    "rax": RAX, "rcx": RCX, "rdx": RDX, "rbx": RBX, "rsp": RSP, "rbp": RBP, "rsi": RSI, "rdi": RDI,
    "r8": R8, "r9": R9, "r10": R10, "r11": R11, "r12": R12, "r13": R13, "r14": R14, "r15": R15,
}  # fmt: skip
_GETTID: Final = 186
# What a record may hold: a general register, the low 8 bytes of xmmN, or the qword at the
# program's rsp + offset (arguments passed on the stack).
Source = tuple[str, str | int]  # ("int", "rdi") | ("sse", 0) | ("stack", 8)


@dataclass(frozen=True, slots=True)
class RecordSpec:
    kind: int  # CALL or RETURN
    trace: int
    values: tuple[Source, ...]


@dataclass(frozen=True, slots=True)
class Rings:
    """Where the program finds its rings: the block's address and layout."""

    address: int
    layout: RingLayout
    fs_base_by_rdfsbase: bool  # else the thread pointer is read at fs:0 (the TLS ABI's self)


def entry_trampoline(
    address: int, record: RecordSpec, rings: Rings, displaced: bytes, span_end: int
) -> bytes:
    """Code at `address`: the record, then `displaced` (relocated to run right after the
    record code: see `record_size`) and a jump back to `span_end`."""
    asm = Assembler()
    _record(asm, record, rings)
    asm.emit(displaced)
    asm.jmp_to(address, span_end)
    return asm.finish()


def record_size(record: RecordSpec, rings: Rings) -> int:
    """The bytes of a record's code (its size does not depend on where it runs)."""
    asm = Assembler()
    _record(asm, record, rings)
    return len(asm.finish())


def return_trampoline(before_ret: bytes, record: RecordSpec, rings: Rings, ret: bytes) -> bytes:
    """Code running `before_ret` (already relocated to the trampoline's start), the record,
    then the function's own `ret` bytes."""
    asm = Assembler()
    asm.emit(before_ret)
    _record(asm, record, rings)
    asm.emit(ret)
    return asm.finish()


def _record(asm: Assembler, record: RecordSpec, rings: Rings) -> None:
    layout = rings.layout
    slots = slots_for(len(record.values))
    scan, claim_scan, claim_next, claimed, found, have_ring, full, done = (
        Label() for _ in range(8)
    )
    no_ring = Label()
    asm.lea_rsp(-RED_ZONE)
    asm.emit(0x9C)  # pushfq
    for name in ("rax", "rcx", "rdx", "r11"):
        asm.push(_NUMBERS[name])
    claims = rings.address + layout.claims
    if rings.fs_base_by_rdfsbase:
        asm.emit(0xF3, 0x48, 0x0F, 0xAE, 0xC0)  # rdfsbase rax
    else:
        asm.emit(0x64, 0x48, 0x8B, 0x04, 0x25, bytes(4))  # mov rax, fs:[0]
    asm.mov_imm(R11, claims)
    asm.emit(0x31, 0xC9)  # xor ecx, ecx
    asm.bind(scan)  # the thread's own claim
    asm.emit(0x49, 0x3B, 0x04, 0xCB)  # cmp rax, [r11+rcx*8]
    asm.jcc("e", found)
    asm.emit(0xFF, 0xC1)  # inc ecx
    asm.emit(0x81, 0xF9, struct.pack("<i", layout.rings))  # cmp ecx, rings
    asm.jcc("b", scan)
    asm.emit(0x31, 0xC9)
    asm.bind(claim_scan)  # none: the first free or released one
    asm.rr(b"\x8b", RDX, RAX)  # rdx = key
    asm.emit(0x49, 0x8B, 0x04, 0xCB)  # mov rax, [r11+rcx*8]
    asm.emit(0x48, 0x83, 0xF8, RELEASED)  # cmp rax, RELEASED
    asm.jcc("a", claim_next)
    asm.emit(0xF0, 0x49, 0x0F, 0xB1, 0x14, 0xCB)  # lock cmpxchg [r11+rcx*8], rdx
    asm.jcc("e", claimed)
    asm.bind(claim_next)
    asm.rr(b"\x8b", RAX, RDX)
    asm.emit(0xFF, 0xC1)
    asm.emit(0x81, 0xF9, struct.pack("<i", layout.rings))
    asm.jcc("b", claim_scan)
    asm.jmp(no_ring)
    asm.bind(claimed)
    asm.push(RCX)
    asm.mov_imm(RAX, _GETTID)
    asm.emit(0x0F, 0x05)  # syscall (clobbers rcx, r11)
    asm.pop(RCX)
    asm.mov_imm(R11, claims)
    _ring_address(asm, layout)
    asm.mem(b"\x89", RAX, R11, TID)
    asm.jmp(have_ring)
    asm.bind(found)
    _ring_address(asm, layout)
    asm.bind(have_ring)  # r11: the ring
    asm.mem(b"\x8b", RCX, R11, HEAD)
    asm.rr(b"\x8b", RDX, RCX)
    asm.mem(b"\x2b", RDX, R11, TAIL)  # rdx = head - tail: slots in use
    if slots > 1:
        asm.emit(0x48, 0x83, 0xC2, slots - 1)  # add rdx, slots - 1
    asm.mem(b"\x3b", RDX, R11, MASK)  # in use > capacity - slots: full
    asm.jcc("a", full)  # never wait for the server
    asm.mem(b"\x23", RCX, R11, MASK)  # and rcx, [r11+mask] (the ring's own size)
    asm.emit(0x48, 0xC1, 0xE1, 0x06)  # shl rcx, 6 (a slot is 64 bytes)
    asm.emit(0x49, 0x8D, 0x4C, 0x0B, RING_HEADER)  # lea rcx, [r11+rcx+64]: the record
    asm.emit(0x48, 0xC7, 0x01, struct.pack("<I", header_word(record.kind, slots, record.trace)))
    asm.emit(0x0F, 0x31)  # rdtsc
    asm.emit(0x48, 0xC1, 0xE2, 0x20)  # shl rdx, 32
    asm.emit(0x48, 0x09, 0xD0)  # or rax, rdx
    asm.mem(b"\x89", RAX, RCX, 8)
    asm.emit(0x48, 0x8D, 0x84, 0x24, struct.pack("<i", _PROGRAM_RSP + 8))  # lea rax, [rsp+N]
    asm.mem(b"\x89", RAX, RCX, 16)  # the CFA
    for index, source in enumerate(record.values):
        _store_value(asm, source, 24 + 8 * index)
    asm.mem(b"\x8b", RAX, R11, HEAD)  # the head last: the record is complete
    asm.emit(0x48, 0x83, 0xC0, slots)  # add rax, slots
    asm.mem(b"\x89", RAX, R11, HEAD)
    asm.jmp(done)
    asm.bind(no_ring)
    asm.rr(b"\x8b", RAX, RDX)
    asm.bind(full)
    counter = (
        rings.address + layout.counters + 16 * record.trace + (8 if record.kind == RETURN else 0)
    )
    asm.mov_imm(RAX, counter)
    asm.emit(0xF0, 0x48, 0xFF, 0x00)  # lock inc qword [rax]: dropped
    asm.bind(done)
    for name in ("r11", "rdx", "rcx", "rax"):
        asm.pop(_NUMBERS[name])
    asm.emit(0x9D)  # popfq
    asm.lea_rsp(RED_ZONE)


def _ring_address(asm: Assembler, layout: RingLayout) -> None:
    """r11 (the claims) := ring number rcx (ring 0 may be larger than the others)."""
    first = Label()
    asm.emit(0x85, 0xC9)  # test ecx, ecx
    asm.jcc("e", first)
    asm.emit(0x48, 0x69, 0xC9, struct.pack("<i", layout.ring_bytes))  # imul rcx, rcx, size
    asm.emit(0x48, 0x81, 0xC1, struct.pack("<i", layout.first_ring_bytes - layout.ring_bytes))
    asm.bind(first)  # add rcx, ring 0's extra bytes; then r11 += rcx + the rings' offset
    asm.emit(0x4D, 0x8D, 0x9C, 0x0B, struct.pack("<i", layout.first_ring - layout.claims))


def _store_value(asm: Assembler, source: Source, offset: int) -> None:
    """[rcx + offset] := the program's value at `source`."""
    kind, where = source
    if kind == "int":
        name = str(where)
        if name in _SAVED:
            asm.mem(b"\x8b", RAX, RSP, _SAVED[name])
            asm.mem(b"\x89", RAX, RCX, offset)
        elif name == "rsp":
            asm.emit(0x48, 0x8D, 0x84, 0x24, struct.pack("<i", _PROGRAM_RSP))
            asm.mem(b"\x89", RAX, RCX, offset)
        else:
            asm.mem(b"\x89", _NUMBERS[name], RCX, offset)
    elif kind == "sse":
        number = int(where)
        asm.emit(0x66)
        if number >= 8:
            asm.emit(0x44)
        asm.emit(
            0x0F, 0xD6, 0x80 | (number & 7) << 3 | RCX, struct.pack("<i", offset)
        )  # movq [rcx+o], xmm
    else:
        asm.mem(b"\x8b", RAX, RSP, _PROGRAM_RSP + int(where))
        asm.mem(b"\x89", RAX, RCX, offset)


def call_record(trace: int, values: Sequence[Source]) -> RecordSpec:
    return RecordSpec(CALL, trace, tuple(values))


def return_record(trace: int, values: Sequence[Source]) -> RecordSpec:
    return RecordSpec(RETURN, trace, tuple(values))
