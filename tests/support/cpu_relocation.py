"""Running displaced instructions and their relocated copies in a traced program, to
compare what the CPU does with each (tests/integration/test_relocate_on_cpu.py).

A small program maps two scratch regions 1 GiB or less apart: the near one holds the
original at A, the data and stack that memory operands and pushes reach, and xsave
buffers; the far one holds the copy at B. Both runs start from the same registers, memory
and vector state (restored with xrstor) and end when pc leaves their block, or on a fault.
"""

from __future__ import annotations

import random
import signal
import struct
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aliceserver.debuggers.events import Exited, Stopped, StopReason
from aliceserver.debuggers.eventsource import Subscription
from aliceserver.debuggers.model import LaunchConfig, SignalPolicy
from aliceserver.debuggers.ptrace.engine import PtraceDebugger
from aliceserver.debuggers.ptrace.patches.relocate import relocation
from tests.support.instruction_forms import Instance, decode_all, memory_operands

SOURCE = r"""
#define _GNU_SOURCE
#include <signal.h>
#include <sys/mman.h>
unsigned char *volatile near_region, *volatile far_region;
__attribute__((noinline)) void ready(void) { __asm__ volatile(""); }
/* The engine keeps a fault's signal pending: the test's last one arrives after ready(). */
static void ignore(int signo) { (void)signo; }
int main(void) {
    signal(SIGSEGV, ignore), signal(SIGILL, ignore), signal(SIGFPE, ignore), signal(SIGBUS, ignore);
    near_region = mmap(0, 1 << 20, 7, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (long gap = 1L << 30; gap > 0 && near_region != MAP_FAILED; gap -= 1L << 26) {
        far_region = mmap(near_region + gap, 1 << 20, 7,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (far_region != MAP_FAILED) break;
    }
    if (near_region == MAP_FAILED || far_region == MAP_FAILED) return 1;
    ready();
    return 0;
}
"""
XSAVE, XRSTOR = bytes.fromhex("480fae27"), bytes.fromhex("480fae2f")  # [rdi], all of RFBM
CODE, DATA, STACK, SAVED, AFTER = 0x1000, 0x10000, 0x20000, 0x40000, 0x48000
DATA_SIZE = STACK_SIZE = 0x10000
XSAVE_SIZE = 0x3000
TCB_SIZE = 0x1000
FLAGS = (0x202, 0x202 | 0x8D5)  # none and all of CF PF AF ZF SF OF: jcc both ways
GENERAL = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10", "r11", "r12",
           "r13", "r14", "r15")  # fmt: skip
MAX_STEPS = 24  # rep forms with rcx = 4 repeat at the same pc
FAULTS = (signal.SIGSEGV, signal.SIGBUS, signal.SIGFPE, signal.SIGILL)


@dataclass
class Outcome:
    signal: int | None
    registers: dict[str, int]
    memory: bytes
    xsave: bytes


class Machine:
    """The traced program's thread and scratch memory, run one block at a time."""

    def __init__(
        self, debugger: PtraceDebugger, events: Subscription, tid: int, near: int, far: int
    ) -> None:
        self.debugger, self.events, self.tid, self.near, self.far = debugger, events, tid, near, far
        # The thread's control block: fs:[disp32] forms write there (errno, TCB fields).
        self.saved = dict(debugger.read_registers(tid).values)
        self.bases = {"fs": self.saved["fs_base"], "gs": self.saved["gs_base"]}
        self.tcb = self.bases["fs"]
        self.tcb_bytes = debugger.read_memory(self.tcb, TCB_SIZE)
        # Random canonical addresses: an indirect call through a non-canonical pointer faults
        # in the copy after the return address push (a documented difference of relocate).
        words = random.Random(19).choices(range(1 << 47), k=(DATA_SIZE + STACK_SIZE) // 8)
        self.pattern = struct.pack(f"<{len(words)}Q", *words)
        debugger.write_memory(near, XSAVE + XRSTOR)
        self.helper(0, SAVED)  # the vector state every run starts from

    def step(self) -> Stopped:
        self.debugger.step_instruction(self.tid)
        while not isinstance(event := self.events.get(timeout=10), Stopped):
            assert not isinstance(event, Exited), "the program exited"
        return event

    def helper(self, offset: int, buffer: int) -> None:
        for name, value in (("rip", self.near + offset), ("rdi", self.near + buffer),
                            ("rax", 0xFFFFFFFF), ("rdx", 0xFFFFFFFF)):  # fmt: skip
            self.debugger.write_register(self.tid, name, value)
        assert self.step().reason is StopReason.STEP

    def run(self, start: int, end: int, registers: dict[str, int]) -> Outcome:
        self.debugger.write_memory(self.near + DATA, self.pattern)
        self.debugger.write_memory(self.tcb, self.tcb_bytes)
        self.helper(len(XSAVE), SAVED)
        for name, value in {**registers, "rip": start}.items():
            self.debugger.write_register(self.tid, name, value)
        fault, pc = None, start
        for _ in range(MAX_STEPS):
            stop = self.step()
            if stop.reason is not StopReason.STEP:
                fault = stop.signal
                # the next stepi would deliver it, as gdb's does: the program would die
                self.debugger.queue_signal(self.tid, 0)
                break
            pc, was = self.debugger.read_registers(self.tid).values["rip"], pc
            if not start <= pc < end or pc == start != was:  # out, or back to the site
                break
        values = dict(self.debugger.read_registers(self.tid).values)
        del values["orig_rax"]
        memory = self.debugger.read_memory(self.near + DATA, DATA_SIZE + STACK_SIZE)
        memory += self.debugger.read_memory(self.tcb, TCB_SIZE)
        self.debugger.write_memory(self.tcb, self.tcb_bytes)
        self.debugger.write_memory(self.near + AFTER, bytes(XSAVE_SIZE))
        self.helper(0, AFTER)
        xsave = self.debugger.read_memory(self.near + AFTER, XSAVE_SIZE)
        return Outcome(fault, values, memory, normalized(xsave))


def normalized(xsave: bytes) -> bytes:
    """The state an xsave area holds, as values: a component whose XSTATE_BV bit is clear is
    in its initial state (the kernel's context switches change which ones are marked), and
    the x87 last-instruction pointer (FIP) is the instruction's own address."""
    area = bytearray(xsave)
    (in_use,) = struct.unpack_from("<Q", area, 512)
    if not in_use & 1:  # x87: FCW 0x37F, the rest zero
        area[0:24] = struct.pack("<H", 0x37F) + bytes(22)
        area[32:160] = bytes(128)
    if not in_use & 2:  # SSE: xmm registers zero (MXCSR stays, saved with AVX too)
        area[160:416] = bytes(256)
    area[8:16] = bytes(8)
    area[512:520] = bytes(8)
    return bytes(area)


def prepared(instance: Instance, at: int, data: int) -> tuple[bytes, list[Any]]:
    """The instance's bytes to run at `at`: rip-relative operands aimed into `data`, rel32
    branches brought within 256 MiB. Same forms."""
    code = bytearray(instance.code)
    for n, insn in enumerate(decode_all(bytes(code), at)):
        offset = insn.address - at
        if "[rip" in insn.op_str:  # always a disp32
            target = data + 0x100 * n - (insn.address + insn.size)
            struct.pack_into("<i", code, offset + insn.disp_offset, target)
        elif insn.imm_size == 4 and 7 in insn.groups:  # a relative branch
            (rel,) = struct.unpack_from("<i", code, offset + insn.imm_offset)
            if abs(rel) > 1 << 28:
                near = (1 << 28) * (1 if rel > 0 else -1)
                struct.pack_into("<i", code, offset + insn.imm_offset, near)
    return bytes(code), decode_all(bytes(code), at)


def registers_for(
    insns: list[Any], data: int, stack: int, flags: int, bases: dict[str, int]
) -> dict[str, int]:
    """Values in scratch memory for every register, with memory operands' addresses set."""
    values = {name: data + 0x200 * (i - 7) for i, name in enumerate(GENERAL)}
    values.update(rcx=4, rdx=0, rsp=stack, eflags=flags)  # rep counts; div's high half
    if any(insn.mnemonic == "rdpkru" for insn in insns):
        values["rcx"] = 0  # else #GP
    operands = [operand for insn in insns for operand in memory_operands(insn)]
    for n, (base, index, scale, disp, segment) in enumerate(operands):
        if base == "rsp":  # rsp + disp 64-byte aligned, for movaps and the like
            values["rsp"] = stack - (stack + disp) % 64
        target = data + 0x800 * (n + 1) - bases.get(segment, 0)
        if index and index == base:  # [r + r*scale + disp]: near target (maybe unaligned)
            values[base] = (target - disp) // (1 + scale)
            continue
        if index:
            values[index] = 2
        if base and base != "rsp":
            values[base] = target - disp - 2 * scale * bool(index)
    return {name: value & (1 << 64) - 1 for name, value in values.items()}


def pushed_early(insns: list[Any], copy: Outcome, original: Outcome, a: int, base: int) -> bool:
    """Whether the copy differs only as relocate documents: an indirect call whose operand
    or target faults has its return address already pushed (rsp 8 lower, one slot written)."""
    at = copy.registers["rip"] - a
    faulting = next((insn for insn in insns if insn.address - a == at), None)
    if (
        faulting is None
        or not faulting.mnemonic.endswith("call")
        or faulting.op_str.startswith("0x")
    ):
        return False
    rsp = copy.registers["rsp"]
    if rsp != original.registers["rsp"] - 8:
        return False
    assert {**copy.registers, "rsp": rsp + 8} == original.registers
    slot = rsp - base
    assert (
        copy.memory[:slot] + copy.memory[slot + 8 :]
        == original.memory[:slot] + original.memory[slot + 8 :]
    )
    assert copy.xsave == original.xsave
    return True


def compare(instance: Instance, machine: Machine, flags: int) -> str:
    """`matched` or `faulted alike`, else AssertionError; Unrelocatable passes through."""
    near, far = machine.near, machine.far
    a, b, data, stack = near + CODE, far + CODE, near + DATA + 0x4000, near + STACK + 0x8000 - 8
    code, insns = prepared(instance, a, data)
    moved = relocation(code, a, b)
    back = struct.pack("<Bi", 0xE9, a + len(code) - (b + len(moved.code) + 5))
    machine.debugger.write_memory(a, code + b"\xcc" * 16)
    machine.debugger.write_memory(b, moved.code + back + b"\xcc" * 16)
    registers = registers_for(insns, data, stack, flags, machine.bases)
    original = machine.run(a, a + len(code), registers)
    copy = machine.run(b, b + len(moved.code) + 5, registers)
    where = f"{instance.form} ({instance.code.hex()} at {instance.address:#x} in {instance.binary})"
    assert copy.signal == original.signal, f"{where}: signal {copy.signal} != {original.signal}"
    if original.signal is not None:  # the copy faults in the copy of the same instruction
        at = copy.registers["rip"] - b
        assert 0 <= at < len(moved.code), f"{where}: the copy faulted outside itself"
        copy.registers["rip"] = a + max(old for new, old in moved.origins if new <= at)
        if pushed_early(insns, copy, original, a, near + DATA):
            return "faulted alike (return address pushed)"
    assert copy.registers == original.registers, f"{where}: registers differ"
    assert copy.memory == original.memory, f"{where}: scratch memory or stack differs"
    assert copy.xsave == original.xsave, f"{where}: vector or x87 state differs"
    return "matched" if original.signal is None else "faulted alike"


@contextmanager
def scratch_machine(tmp_path: Path) -> Iterator[Machine]:
    """The scratch program built, launched and stopped in ready(); on leaving, its registers
    and vector state are put back and it must run to its normal end."""
    source, program = tmp_path / "scratch.c", tmp_path / "scratch"
    source.write_text(SOURCE)
    subprocess.run(["gcc", "-O0", "-o", str(program), str(source)], check=True)
    debugger = PtraceDebugger()
    events = debugger.subscribe()
    try:
        debugger.launch(LaunchConfig(str(program)))
        for signum in FAULTS:
            policy = SignalPolicy(stop=True, pass_to_program=False, print_=False)
            debugger.set_signal_policy(signum, policy)
        debugger.insert_breakpoint(debugger.lookup_symbol("ready"), temporary=True)
        debugger.resume()
        while not isinstance(stop := events.get(timeout=10), Stopped):
            assert not isinstance(stop, Exited), "the program could not map its scratch memory"
        pointers = [debugger.lookup_symbol(name) for name in ("near_region", "far_region")]
        near, far = (int.from_bytes(debugger.read_memory(p, 8), "little") for p in pointers)
        machine = Machine(debugger, events, stop.thread_id, near, far)
        yield machine
        machine.helper(len(XSAVE), SAVED)  # the program's own vector state
        for name in (*GENERAL, "rip", "rsp", "eflags"):
            debugger.write_register(stop.thread_id, name, machine.saved[name])
        debugger.resume()
        while not isinstance(event := events.get(timeout=10), Exited):
            pass
        assert event.code == 0
    finally:
        debugger.close()
