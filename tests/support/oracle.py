"""python-ptrace (GPL-2.0, a test-time oracle only): run a program to a breakpoint independently."""

from __future__ import annotations

import ctypes
import os
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

ADDR_NO_RANDOMIZE = 0x0040000
QUERY_PERSONALITY = 0xFFFFFFFF

GENERAL_REGISTERS = (
    "rip", "rsp", "rbp", "rax", "rbx", "rcx", "rdx", "rsi", "rdi",
    "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
    "eflags", "cs", "ss", "ds", "es", "fs", "gs", "fs_base", "gs_base",
)  # fmt: skip


@dataclass(frozen=True)
class OracleReading:
    pid: int
    registers: dict[str, int]  # python-ptrace names mapped to gdb's ("eflags")
    memory: dict[int, bytes]  # address -> bytes read at the stop


def _personality(persona: int) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.personality.restype = ctypes.c_int
    libc.personality.argtypes = [ctypes.c_ulong]
    result = int(libc.personality(persona))
    if result == -1:
        raise OSError(ctypes.get_errno(), "personality failed")
    return result


def run_to_breakpoint(
    program: Path,
    args: Sequence[str],
    env: Mapping[str, str],
    cwd: str,
    address_of: Callable[[int], int],
    memory: Callable[[dict[str, int]], list[tuple[int, int]]],
) -> OracleReading:
    """Start `program` under python-ptrace with ASLR off and stop at `address_of(pid)`.

    `memory(registers)` names the (address, size) blocks to read at the stop.
    """
    from ptrace.debugger import PtraceDebugger
    from ptrace.debugger.child import createChild

    debugger: Any = PtraceDebugger()
    old_cwd = os.getcwd()
    old = _personality(QUERY_PERSONALITY)
    # The child inherits the personality and the cwd of the forking thread; restore both after.
    _personality(old | ADDR_NO_RANDOMIZE)
    try:
        os.chdir(cwd)
        pid = createChild([str(program), *args], True, dict(env))
    finally:
        os.chdir(old_cwd)
        _personality(old)
    try:
        process: Any = debugger.addProcess(pid, is_attached=True)
        address = address_of(pid)
        breakpoint_ = process.createBreakpoint(address)
        process.cont()
        process.waitSignals(signal.SIGTRAP)
        breakpoint_.desinstall(set_ip=True)  # rewind rip to the trap address
        raw = process.getregs()
        registers = {name: int(getattr(raw, name)) for name in GENERAL_REGISTERS}
        blocks = {addr: bytes(process.readBytes(addr, size)) for addr, size in memory(registers)}
        return OracleReading(pid=pid, registers=registers, memory=blocks)
    finally:
        debugger.quit()
