"""The trap emulator must do exactly what the CPU does.

A naked function holds the instructions the emulator claims. For each one we predict its
effect with the emulator, single-step it for real, and compare registers and memory.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from aliceserver.debuggers.events import Exited, Stopped, StopReason
from aliceserver.debuggers.eventsource import Subscription
from aliceserver.debuggers.model import LaunchConfig
from aliceserver.debuggers.ptrace import binding
from aliceserver.debuggers.ptrace.emulate import plan_for
from aliceserver.debuggers.ptrace.engine import PtraceDebugger

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is needed to build the program"),
]

SOURCE = r"""
__attribute__((naked, noinline)) void sequence(void) {
    __asm__ volatile(
        "endbr64\n"
        "push %rbp\n"
        "mov %rsp, %rbp\n"
        "push %r12\n"
        "push %rsp\n"
        "mov %rdi, %rax\n"
        "mov %r9, %r13\n"
        "mov %rax, %r8\n"
        "mov %edi, -0x14(%rbp)\n"
        "mov %rsi, -0x20(%rbp)\n"
        "mov %r10d, -0x28(%rbp)\n"
        "mov %edi, -0x200(%rbp)\n"
        "mov -0x14(%rbp), %ecx\n"
        "mov -0x20(%rbp), %r11\n"
        "mov -0x200(%rbp), %edx\n"
        "mov sequence(%rip), %r9\n"
        "mov sequence+4(%rip), %eax\n"
        "nop\n"
        "xchg %ax, %ax\n"
        "nopl 0x0(%rax,%rax,1)\n"
        "pop %rax\n"
        "pop %r12\n"
        "pop %rbp\n"
        "ret\n");
}
int main(void) {
    __asm__ volatile("mov $0x1122334455667788, %%rdi\n"
                     "mov $0x99aabbccddeeff00, %%rsi\n"
                     "mov $0x0102030405060708, %%r9\n"
                     "mov $0xa0b0c0d0, %%r10\n"
                     "call sequence\n" ::: "rax", "rcx", "rdx", "rdi", "rsi", "r8", "r9", "r10",
                     "r11", "r13", "memory");
    return 0;
}
"""


def wait_stop(events: Subscription) -> Stopped:
    while True:
        event = events.get(timeout=10)
        if isinstance(event, Stopped):
            return event
        assert not isinstance(event, Exited), "the program exited early"


def test_emulation_matches_single_stepping(tmp_path: Path) -> None:
    source = tmp_path / "seq.c"
    source.write_text(SOURCE)
    program = tmp_path / "seq"
    subprocess.run(["gcc", "-O0", "-o", str(program), str(source)], check=True)
    debugger = PtraceDebugger()
    events = debugger.subscribe()
    try:
        debugger.launch(LaunchConfig(str(program)))
        start = debugger.lookup_symbol("sequence")
        debugger.insert_breakpoint(start, temporary=True)
        debugger.resume()
        stop = wait_stop(events)
        assert stop.reason is StopReason.BREAKPOINT
        tid = stop.thread_id
        checked = 0
        while True:
            before = debugger.read_registers(tid).values
            code = debugger.read_memory(before["rip"], 16)
            plan = plan_for(code)
            if plan is None:
                break  # the first pop: the end of the claimed instructions
            predicted = binding.UserRegs(**before)
            writes: list[tuple[int, bytes]] = []

            def record(address: int, data: bytes, writes: list[tuple[int, bytes]] = writes) -> None:
                writes.append((address, data))

            plan.apply(predicted, debugger.read_memory, record)
            debugger.step_instruction(tid)
            assert wait_stop(events).reason is StopReason.STEP
            after = debugger.read_registers(tid).values
            expected = {name: getattr(predicted, name) for name in binding.REGISTER_NAMES}
            assert after == expected, f"registers differ after {code[:8].hex()}"
            for address, data in writes:
                assert debugger.read_memory(address, len(data)) == data
            checked += 1
        assert checked == 20
        debugger.resume()
        while not isinstance(event := events.get(timeout=10), Exited):
            pass
        assert event.code == 0
    finally:
        debugger.close()
