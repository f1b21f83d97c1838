"""Relocated displaced instructions must do on the CPU what the originals do.

Every instruction form found at function entries and loop lines (tests/support/
instruction_forms.py) in the libc programs load, the system python3 (and its libpython when
shared) and the system's sqlite3 library (libsqlite3.so.0: building the sqlite shell as
bench/sqlite_program.py does takes too long for a test) is run twice in a traced program:
its real instance at A, then relocate()'s copy at B, 1 GiB away, followed by the jump back
to A + len. Both runs start from the same registers, memory and vector state (restored with
xrstor); both end when pc leaves their block (the copy must leave to A + len or to the
original branch target), or on a fault. Registers, flags, scratch memory, the stack and
the xsave area (less the x87 last-instruction pointer, which is the instruction's own
address) must match, unless relocate refused the form with one of the documented reasons.
Memory operands are made to point into scratch memory: base registers are set for it and
rip-relative displacements (rel32 branch offsets above 256 MiB too) are changed in the
instance, keeping its form.
"""

from __future__ import annotations

import random
import shutil
import signal
import struct
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.events import Exited, Stopped, StopReason
from aliceserver.debuggers.eventsource import Subscription
from aliceserver.debuggers.model import LaunchConfig, SignalPolicy
from aliceserver.debuggers.ptrace.engine import PtraceDebugger
from aliceserver.debuggers.ptrace.patches.relocate import RefusalKind, Unrelocatable, relocation
from tests.support.instruction_forms import (
    Instance,
    collect,
    decode,
    memory_operands,
    python_binaries,
)

SQLITE = Path("/usr/lib/x86_64-linux-gnu/libsqlite3.so.0")
pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is needed to build the program"),
    pytest.mark.skipif(
        not SQLITE.exists(), reason="the system's sqlite3 library (libsqlite3-0) is needed"
    ),
]

# What relocate may refuse among these forms: instructions whose behaviour needs their own
# address (syscall's rcx, loop/jrcxz rel8) and calls that read rsp with no room to adjust.
DOCUMENTED = {RefusalKind.SHORT_ONLY, RefusalKind.OWN_ADDRESS, RefusalKind.CALL_USES_RSP,
              RefusalKind.BREAKPOINT, RefusalKind.FAR, RefusalKind.PREFIX}  # fmt: skip

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
MAX_STEPS = 16  # rep forms with rcx = 4 repeat at the same pc
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
        self.tcb = debugger.read_registers(tid).values["fs_base"]
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
        fault = None
        for _ in range(MAX_STEPS):
            stop = self.step()
            if stop.reason is not StopReason.STEP:
                fault = stop.signal
                break
            if not start <= self.debugger.read_registers(self.tid).values["rip"] < end:
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


def prepared(instance: Instance, at: int, data: int) -> tuple[bytes, Any]:
    """The instance's bytes to run at `at`: a rip-relative operand aimed at `data`, a rel32
    branch brought within 256 MiB. Same form."""
    code = bytearray(instance.code)
    insn = decode(bytes(code), at)
    end = at + len(code)
    if "[rip" in insn.op_str:  # always a disp32
        struct.pack_into("<i", code, insn.disp_offset, data - end)
    elif insn.imm_size == 4 and 7 in insn.groups:  # a relative branch
        (rel,) = struct.unpack_from("<i", code, insn.imm_offset)
        if abs(rel) > 1 << 28:
            struct.pack_into("<i", code, insn.imm_offset, (1 << 28) * (1 if rel > 0 else -1))
    return bytes(code), decode(bytes(code), at)


def registers_for(
    insn: Any, data: int, stack: int, flags: int, bases: dict[str, int]
) -> dict[str, int]:
    """Values in scratch memory for every register, with memory operands' addresses set."""
    values = {name: data + 0x200 * (i - 7) for i, name in enumerate(GENERAL)}
    values.update(rcx=4, rdx=0, rsp=stack, eflags=flags)  # rep counts; div's high half
    if insn.mnemonic == "rdpkru":
        values["rcx"] = 0  # else #GP
    for n, (base, index, scale, disp, segment) in enumerate(memory_operands(insn)):
        if base == "rsp":  # rsp + disp 64-byte aligned, for movaps and the like
            values["rsp"] = stack - (stack + disp) % 64
        target = data + 0x800 * n - bases.get(segment, 0)
        if index and index == base:
            while (target - disp) % (1 + scale):
                target += 64
            values[base] = (target - disp) // (1 + scale)
            continue
        if index:
            values[index] = 2
        if base and base != "rsp":
            values[base] = target - disp - 2 * scale * bool(index)
    return {name: value & (1 << 64) - 1 for name, value in values.items()}


def compare(instance: Instance, machine: Machine, flags: int, bases: dict[str, int]) -> str:
    """`matched` or `faulted alike`, else AssertionError; Unrelocatable passes through."""
    near, far = machine.near, machine.far
    a, b, data, stack = near + CODE, far + CODE, near + DATA + 0x8000, near + STACK + 0x8000 - 8
    code, insn = prepared(instance, a, data)
    moved = relocation(code, a, b)
    back = struct.pack("<Bi", 0xE9, a + len(code) - (b + len(moved.code) + 5))
    machine.debugger.write_memory(a, code + b"\xcc" * 16)
    machine.debugger.write_memory(b, moved.code + back + b"\xcc" * 16)
    registers = registers_for(insn, data, stack, flags, bases)
    original = machine.run(a, a + len(code), registers)
    copy = machine.run(b, b + len(moved.code) + 5, registers)
    where = f"{instance.form} ({instance.code.hex()} at {instance.address:#x} in {instance.binary})"
    assert copy.signal == original.signal, f"{where}: signal {copy.signal} != {original.signal}"
    if original.signal is not None:
        assert original.registers["rip"] == a, where
        assert b <= copy.registers["rip"] < b + len(moved.code), where
        copy.registers["rip"] = a
    assert copy.registers == original.registers, f"{where}: registers differ"
    assert copy.memory == original.memory, f"{where}: scratch memory or stack differs"
    assert copy.xsave == original.xsave, f"{where}: vector or x87 state differs"
    return "matched" if original.signal is None else "faulted alike"


def test_relocated_forms_match_the_cpu(tmp_path: Path) -> None:
    source, program = tmp_path / "scratch.c", tmp_path / "scratch"
    source.write_text(SOURCE)
    subprocess.run(["gcc", "-O0", "-o", str(program), str(source)], check=True)
    debugger = PtraceDebugger()
    events = debugger.subscribe()
    try:
        debugger.launch(LaunchConfig(str(program)))
        for signum in FAULTS:
            debugger.set_signal_policy(
                signum, SignalPolicy(stop=True, pass_to_program=False, print_=False)
            )
        debugger.insert_breakpoint(debugger.lookup_symbol("ready"), temporary=True)
        debugger.resume()
        while not isinstance(stop := events.get(timeout=10), Stopped):
            assert not isinstance(stop, Exited), "the program could not map its scratch memory"
        tid = stop.thread_id
        libc = [Path(m.path) for m in debugger.modules() if Path(m.path).name.startswith("libc.so")]
        assert len(libc) == 1, "the program should load one libc"
        forms = collect([*libc, *python_binaries(), SQLITE])
        assert len(forms) > 100
        pointers = [debugger.lookup_symbol(name) for name in ("near_region", "far_region")]
        near, far = (int.from_bytes(debugger.read_memory(p, 8), "little") for p in pointers)
        saved = debugger.read_registers(tid).values
        machine = Machine(debugger, events, tid, near, far)
        bases = {"fs": saved["fs_base"], "gs": saved["gs_base"]}
        outcomes: Counter[str] = Counter()
        matched: list[str] = []
        faulted: list[str] = []
        refused: dict[RefusalKind, list[str]] = {}
        for form, instance in sorted(forms.items()):
            try:
                results = {compare(instance, machine, flags, bases) for flags in FLAGS}
            except Unrelocatable as refusal:
                refused.setdefault(refusal.kind, []).append(f"{form}: {refusal.reason}")
                continue
            outcomes[" and ".join(sorted(results))] += 1
            (matched if results == {"matched"} else faulted).append(form)
        machine.helper(len(XSAVE), SAVED)  # the program's own vector state
        for name in GENERAL + ("rip", "rsp", "eflags"):
            debugger.write_register(tid, name, saved[name])
        print(f"\n{len(forms)} forms: {dict(outcomes)}\nfaulted alike: {', '.join(faulted)}")
        for kind, reasons in refused.items():
            print(f"refused ({kind.value}): {len(reasons)}: " + "; ".join(reasons[:3]))
        assert set(refused) <= DOCUMENTED
        assert outcomes["matched"] > len(forms) // 2
        # Each fix-up was exercised: rip-relative operands, widened rel8, calls, indirect calls.
        for needed in ("[rip]", "rel8", "call rel32", "call m64[rip]", "call r64"):
            assert any(needed in form for form in matched), f"no {needed} form ran"
        debugger.resume()
        while not isinstance(event := events.get(timeout=10), Exited):
            pass
        assert event.code == 0
    finally:
        debugger.close()
