"""The trampoline a jump patch's `jmp rel32` leads to: save the program's registers, judge
the condition, count the hit, stop, log or go on, and run the displaced instructions.

Layout of the code built for one site (addresses in Trampoline):

    entry:           lea rsp,[rsp-128]; pushfq; push the 16 general registers (the block);
                     rsp slot := the program's rsp; rbx := block; rsp aligned to 16
    condition code   (codegen.py; RAX value, ECX undecided)      -> judge_trap if undecided
                                                                 -> resume if false
    condition_true:  lock xadd the hit counter; hits so far < ignore count -> resume
                     [logpoint: evaluate the values (-> log_judge_trap if undecided),
                      append a record to the ring buffer (-> ring_full if full), -> resume]
    stop_trap:       int3
    judge_trap:      int3
    log_judge_trap:  int3
    ring_full:       int3
    resume:          rsp := rbx; pop the registers; popfq; lea rsp,[rsp+128]
    displaced_entry: the relocated displaced instructions; jmp site+span

At any trap RBX holds the saved block's address. The engine resumes a stopped thread at
displaced_entry with the program's registers (registers_from_saved_block, rip aside); after
judging at judge_trap it sets the pc to condition_true (true) or resume (false), registers
untouched; after log_judge_trap it writes the log itself and sets the pc to resume; at
ring_full it drains the ring and sets the pc to ring_retry, registers untouched (R8 holds
the ring, the values are pushed), where the reservation is tried again: a message is never
dropped, as none is at gdb's dprintf.
"""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from aliceserver.debuggers.ptrace.patches.emitter import (
    R8,
    RAX,
    RBX,
    RCX,
    RDX,
    RSP,
    Assembler,
    Label,
)

RED_ZONE = 128
# Pushed in this order after rflags: so the first is at the highest address.
_PUSHED = ["rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi"] + [f"r{n}" for n in range(8, 16)]
_PUSH_NUMBER = dict(zip(_PUSHED, range(16), strict=True))
_AT_HWCAP2, _HWCAP2_FSGSBASE = 26, 1 << 1
_INT3_UD2 = bytes([0xCC, 0x0F, 0x0B])  # a trap, and a fault should anything run past it


@dataclass(frozen=True, slots=True)
class SavedRegisters:
    """The block the trampoline saves: each register's offset from its base (RBX)."""

    offsets: Mapping[str, int]
    size: int
    base_register: str = "rbx"

    def program_rsp(self, base: int) -> int:
        """The program's rsp at the site, from the block's address (also in its rsp slot)."""
        return base + self.size + RED_ZONE


SAVED = SavedRegisters(
    offsets={"eflags": 8 * 16} | {name: 8 * (15 - i) for i, name in enumerate(_PUSHED)},
    size=8 * 17,
)


def registers_from_saved_block(block: bytes) -> dict[str, int]:
    """The program's general registers and eflags at the site, from the saved block."""
    return {
        name: struct.unpack_from("<Q", block, offset)[0] for name, offset in SAVED.offsets.items()
    }


@dataclass(frozen=True, slots=True)
class RingBuffer:
    """A logpoint ring in the data area: a 64-byte header, then `capacity` records of
    (sequence, patch id, thread id, values...) qwords. A record is complete when its
    sequence holds its index + 1 (written last); producers reserve the head index with
    lock cmpxchg while head - tail < capacity, and trap otherwise (Trampoline.ring_full)
    until the server has read records; the server reads records from tail and advances
    tail."""

    address: int  # in the program
    capacity: int  # a power of two
    values: int  # value slots per record
    strings: int = 0  # string slots per record, after the values: STRING_BYTES each

    HEAD = 0
    TAIL = 8
    RECORDS = 64
    STRING_BYTES = 200  # a C string of fewer bytes (its NUL in them) is copied whole

    @property
    def record_size(self) -> int:
        return 8 * (3 + self.values) + self.strings * self.STRING_BYTES


@dataclass(frozen=True, slots=True)
class LogRecord:
    patch_id: int
    thread_id: int
    values: tuple[int, ...]
    strings: tuple[bytes, ...] = ()  # its string slots' bytes, up to their NUL


def drain_ring(ring: RingBuffer, memory: memoryview, count: int,
               strings_of: Callable[[int], int] = lambda patch_id: 0) -> list[LogRecord]:  # fmt: skip
    """The complete records from tail on, the tail advanced past them (the server's side,
    the ring's bytes at `memory`); `count` values are taken from each, and the strings
    `strings_of(patch id)` says its logpoint wrote."""
    tail = struct.unpack_from("<Q", memory, ring.TAIL)[0]
    records = []
    first_string = 24 + 8 * ring.values
    while True:
        at = ring.RECORDS + (tail % ring.capacity) * ring.record_size
        sequence, patch_id, thread_id = struct.unpack_from("<3Q", memory, at)
        if sequence != tail + 1:
            break  # not written yet (or still being written: its sequence comes last)
        values = struct.unpack_from(f"<{count}Q", memory, at + 24)
        texts: tuple[bytes, ...] = ()
        if wanted := strings_of(patch_id):
            starts = [at + first_string + k * ring.STRING_BYTES for k in range(wanted)]
            texts = tuple(bytes(memory[a : a + ring.STRING_BYTES]).split(b"\0", 1)[0] for a in starts)
        records.append(LogRecord(patch_id, thread_id, values, texts))
        tail += 1
    struct.pack_into("<Q", memory, ring.TAIL, tail)
    return records


@dataclass(frozen=True, slots=True)
class Logpoint:
    patch_id: int
    values: Sequence[bytes]  # codegen.compile_code of each value
    ring: RingBuffer
    # The record's thread: its fs base by rdfsbase (no system call: no syscall stop under
    # catch syscall, nothing for seccomp to refuse) where the kernel allows the instruction
    # (fs_base_readable), else its tid by gettid.
    thread_by_fs_base: bool = False
    # The values that are C strings' addresses: their bytes copied to the record's string
    # slots in this order (a string of STRING_BYTES or more has the hit judged at the trap).
    strings: Sequence[int] = ()


def fs_base_readable() -> bool:
    """Whether programs may run rdfsbase here (the kernel sets HWCAP2_FSGSBASE for them)."""
    libc = ctypes.CDLL(None)
    libc.getauxval.restype = ctypes.c_ulong
    libc.getauxval.argtypes = [ctypes.c_ulong]
    return bool(libc.getauxval(_AT_HWCAP2) & _HWCAP2_FSGSBASE)


@dataclass(frozen=True, slots=True)
class Trampoline:
    code: bytes
    entry: int
    condition_range: tuple[int, int]  # a fault here: the condition's memory was unreadable
    values_range: tuple[int, int]  # a fault here: a logpoint value's memory was unreadable
    condition_true: int
    stop_trap: int
    judge_trap: int
    log_judge_trap: int
    ring_full: int  # a logpoint's full ring: drained by the engine, then ring_retry
    ring_retry: int
    resume: int
    displaced_entry: int
    end: int
    saved: SavedRegisters = SAVED


def build_trampoline(
    *,
    address: int,
    span_end: int,
    displaced: bytes,
    condition: bytes | None,
    hit_counter: int,
    ignore_count: int,
    logpoint: Logpoint | None = None,
) -> Trampoline:
    """The trampoline to live at `address` for a site whose displaced instructions, already
    relocated to run at displaced_entry, end at `span_end`; `condition` is codegen's code or
    None (always true); hit_counter and ignore_count are addresses of qwords."""
    asm = Assembler()
    judge, log_judge, resume, stop = Label(), Label(), Label(), Label()
    full, retry = Label(), Label()
    asm.lea_rsp(-RED_ZONE)
    asm.emit(0x9C)  # pushfq
    for name in _PUSHED:
        asm.push(_PUSH_NUMBER[name])
    asm.rr(b"\x8b", RBX, RSP)  # mov rbx, rsp
    asm.emit(0x48, 0x8D, 0x83, struct.pack("<i", SAVED.size + RED_ZONE))  # lea rax,[rbx+N]
    asm.mem(b"\x89", RAX, RBX, SAVED.offsets["rsp"])  # the rsp slot: the program's rsp
    asm.emit(0x48, 0x83, 0xE4, 0xF0)  # and rsp, -16 (flags are saved)
    condition_start = len(asm.code)
    if condition is not None:
        asm.emit(condition)
    condition_end = len(asm.code)
    if condition is not None:
        _branch_on_result(asm, judge, resume)
    condition_true = len(asm.code)
    asm.mov_imm(RAX, hit_counter)
    asm.mov_imm(RDX, 1)
    asm.emit(0xF0, 0x48, 0x0F, 0xC1, 0x10)  # lock xadd [rax], rdx: rdx = the hits before
    asm.mov_imm(RAX, ignore_count)
    asm.emit(0x48, 0x3B, 0x10)  # cmp rdx, [rax]
    asm.jcc("b", resume)  # ignored: the engine may change the count while the program runs
    values_start = values_end = 0
    if logpoint is not None:
        values_start = len(asm.code)
        values_end = _log(asm, logpoint, log_judge, full, retry)
        asm.jmp(resume)
    positions = {}
    traps = (("stop", stop), ("judge", judge), ("log_judge", log_judge), ("ring_full", full))
    for name, label in traps:
        asm.bind(label)
        positions[name] = len(asm.code)
        asm.emit(_INT3_UD2)
    asm.bind(resume)
    resume_at = len(asm.code)
    asm.rr(b"\x8b", RSP, RBX)  # mov rsp, rbx
    for name in reversed(_PUSHED):
        if name == "rsp":
            asm.lea_rsp(8)  # the slot: lea rsp,[rsp+8] puts back the rest's addresses
        else:
            asm.pop(_PUSH_NUMBER[name])
    asm.emit(0x9D)  # popfq
    asm.lea_rsp(RED_ZONE)
    displaced_at = len(asm.code)
    asm.emit(displaced)
    asm.jmp_to(address, span_end)
    code = asm.finish()
    return Trampoline(
        code=code,
        entry=address,
        condition_range=(address + condition_start, address + condition_end),
        values_range=(address + values_start, address + values_end),
        condition_true=address + condition_true,
        stop_trap=address + positions["stop"],
        judge_trap=address + positions["judge"],
        log_judge_trap=address + positions["log_judge"],
        ring_full=address + positions["ring_full"],
        ring_retry=address + (positions["ring_full"] if retry.position is None else retry.position),
        resume=address + resume_at,
        displaced_entry=address + displaced_at,
        end=address + len(code),
    )


def _branch_on_result(asm: Assembler, judge: Label, false: Label) -> None:
    asm.rr(b"\x85", RCX, RCX, wide=False)  # test ecx, ecx
    asm.jcc("ne", judge)
    asm.rr(b"\x85", RAX, RAX)
    asm.jcc("e", false)


_STRING_ROOM = 208  # stack bytes holding a string's copy until its record is reserved


def _copy_string(asm: Assembler, ring: RingBuffer, judge: Label) -> None:
    """The C string at RAX (just pushed) copied to the stack up to its NUL; none for a null
    pointer (printed "(null)"); one with no NUL in STRING_BYTES goes to `judge` (the trap
    prints it whole, as gdb's dprintf does). A fault reading it is the value's error."""
    done, again = Label(), Label()
    asm.emit(0x48, 0x81, 0xEC, struct.pack("<i", _STRING_ROOM))  # sub rsp, room
    asm.rr(b"\x85", RAX, RAX)  # test rax, rax
    asm.jcc("e", done)
    asm.emit(0x48, 0x89, 0xC6)  # mov rsi, rax
    asm.emit(0x48, 0x89, 0xE7)  # mov rdi, rsp
    asm.emit(0xB9, struct.pack("<I", ring.STRING_BYTES))  # mov ecx, STRING_BYTES
    asm.bind(again)
    asm.emit(0x8A, 0x16, 0x88, 0x17)  # mov dl, [rsi]; mov [rdi], dl
    asm.emit(0x84, 0xD2)  # test dl, dl
    asm.jcc("e", done)
    asm.emit(0x48, 0xFF, 0xC6, 0x48, 0xFF, 0xC7)  # inc rsi; inc rdi
    asm.emit(0xFF, 0xC9)  # dec ecx
    asm.jcc("ne", again)
    asm.jmp(judge)
    asm.bind(done)


def _log(asm: Assembler, log: Logpoint, judge: Label, full: Label, reserve: Label) -> int:
    """The record's code (`reserve`: where a reservation starts, R8 the ring); answers
    where the values' code ends."""
    ring, retry = log.ring, Label()
    assert ring.capacity & (ring.capacity - 1) == 0 and len(log.values) <= ring.values
    assert len(log.strings) <= ring.strings
    for index, code in enumerate(log.values):  # pushed in order: popped last first
        asm.emit(code)
        asm.rr(b"\x85", RCX, RCX, wide=False)
        asm.jcc("ne", judge)
        asm.push(RAX)
        if index in log.strings:
            _copy_string(asm, ring, judge)
    values_end = len(asm.code)
    if log.thread_by_fs_base:
        asm.emit(0xF3, 0x48, 0x0F, 0xAE, 0xC0)  # rdfsbase rax
    else:
        asm.mov_imm(RAX, 186)  # gettid (clobbers rcx and r11, saved)
        asm.emit(0x0F, 0x05)  # syscall
    asm.push(RAX)
    asm.mov_imm(R8, ring.address)
    asm.bind(reserve)  # (the head read again: the one seen before a trap is stale)
    asm.mem(b"\x8b", RAX, R8, ring.HEAD)  # mov rax, [r8+head]
    asm.bind(retry)
    asm.rr(b"\x8b", RDX, RAX)
    asm.mem(b"\x2b", RDX, R8, ring.TAIL)  # rdx = head - tail
    asm.emit(0x48, 0x81, 0xFA, struct.pack("<i", ring.capacity))  # cmp rdx, capacity
    asm.jcc("ae", full)  # full: the engine drains it (or head moved on since it was read)
    asm.emit(0x48, 0x8D, 0x50, 0x01)  # lea rdx, [rax+1]
    asm.emit(0xF0)  # lock cmpxchg [r8+head], rdx (rax: the head seen, reloaded on failure)
    asm.mem(b"\x0f\xb1", RDX, R8, ring.HEAD)
    asm.jcc("ne", retry)
    asm.rr(b"\x8b", RDX, RAX)  # the record: r8 + RECORDS + (index % capacity) * size
    asm.emit(0x48, 0x81, 0xE2, struct.pack("<i", ring.capacity - 1))  # and rdx, capacity-1
    asm.emit(0x48, 0x69, 0xD2, struct.pack("<i", ring.record_size))  # imul rdx, rdx, size
    asm.rr(b"\x03", RDX, R8)  # add rdx, r8
    asm.pop(RCX)
    asm.mem(b"\x89", RCX, RDX, ring.RECORDS + 16)  # thread id
    asm.mov_imm(RCX, log.patch_id)
    asm.mem(b"\x89", RCX, RDX, ring.RECORDS + 8)
    for slot in reversed(range(len(log.values))):
        if slot in log.strings:  # its bytes, on the stack above its address
            at = ring.RECORDS + 24 + 8 * ring.values + ring.STRING_BYTES * list(log.strings).index(slot)
            asm.emit(0x48, 0x89, 0xE6)  # mov rsi, rsp
            asm.emit(0x48, 0x8D, 0xBA, struct.pack("<i", at))  # lea rdi, [rdx+at]
            asm.emit(0xB9, struct.pack("<I", ring.STRING_BYTES))  # mov ecx, STRING_BYTES
            asm.emit(0xFC, 0xF3, 0xA4)  # cld; rep movsb (the flags are the program's again at resume)
            asm.emit(0x48, 0x81, 0xC4, struct.pack("<i", _STRING_ROOM))  # add rsp, room
        asm.pop(RCX)
        asm.mem(b"\x89", RCX, RDX, ring.RECORDS + 24 + 8 * slot)
    asm.emit(0x48, 0x8D, 0x48, 0x01)  # lea rcx, [rax+1]
    asm.mem(b"\x89", RCX, RDX, ring.RECORDS)  # the sequence last: the record is complete
    return values_end
