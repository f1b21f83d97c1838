"""Memory, registers, vector registers, backtraces and disassembly."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.events import StopReason
from aliceserver.errors import TargetError
from tests.support.build import Builder
from tests.support.elf import load_base, objdump_function
from tests.support.events import EventLog
from tests.support.session import continue_to_exit, continue_to_stop, launch

pytestmark = [pytest.mark.timeout(60), pytest.mark.both_backends]

GENERAL = (
    "rip", "rsp", "rbp", "rax", "rbx", "rcx", "rdx", "rsi", "rdi",
    "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
    "eflags", "cs", "ss", "ds", "es", "fs", "gs", "fs_base", "gs_base", "orig_rax",
)  # fmt: skip


def cpu_has(flag: str) -> bool:
    return any(
        line.startswith("flags") and flag in line.split()
        for line in Path("/proc/cpuinfo").read_text().splitlines()
    )


def test_read_and_write_globals(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    launch(debugger, builder.build("calls"), ["3"])
    bp = debugger.insert_breakpoint(debugger.lookup_symbol("add"))
    continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    buf = debugger.lookup_symbol("global_buf")
    assert debugger.read_memory(buf, 20) == b"alice-global-buffer\0"
    value = debugger.lookup_symbol("global_value")
    assert debugger.read_memory(value, 8) == (0x1122334455667788).to_bytes(8, "little")
    debugger.write_memory(value, (0xDEADBEEFCAFE).to_bytes(8, "little"))
    assert debugger.read_memory(value, 8) == (0xDEADBEEFCAFE).to_bytes(8, "little")
    # A large read across the whole data page works too.
    assert b"alice-global-buffer" in debugger.read_memory(buf & ~0xFFF, 4096)
    debugger.remove_breakpoint(bp.id)
    assert continue_to_exit(debugger, events).code == 0
    assert "global_value=deadbeefcafe\n" in events.output()


def test_unmapped_memory_is_an_error(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    launch(debugger, builder.build("calls"), ["3"])
    with pytest.raises(TargetError):
        debugger.read_memory(0, 8)
    with pytest.raises(TargetError):
        debugger.write_memory(0, b"\x01")
    with pytest.raises(TargetError):
        debugger.read_memory(0xFFFF_8000_0000_0000, 8)  # kernel space
    buf = debugger.lookup_symbol("global_buf")
    assert debugger.read_memory(buf, 5) == b"alice"  # still usable
    assert continue_to_exit(debugger, events).code == 0


def test_general_registers(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    info = launch(debugger, builder.build("calls"), ["1"])
    addr = debugger.lookup_symbol("add")
    debugger.insert_breakpoint(addr)
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    regs = debugger.read_registers(info.pid)
    missing = [name for name in GENERAL if name not in regs.values]
    assert not missing, f"missing registers: {missing}"
    assert regs["rip"] == addr == stop.address
    assert regs["rsp"] % 16 == 8  # just after a call
    return_address = int.from_bytes(debugger.read_memory(regs["rsp"], 8), "little")
    assert debugger.lookup_address(return_address).name == "main"
    assert (regs["cs"], regs["ss"]) == (0x33, 0x2B)
    assert regs["fs_base"] != 0  # glibc set up TLS
    assert regs["eflags"] & 0x2  # reserved bit 1 is always set
    assert regs["rdi"] & 0xFFFFFFFF == 0 and regs["rsi"] & 0xFFFFFFFF == 0  # add(0, 0)


def test_vector_registers_xmm(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    info = launch(debugger, builder.build("xmm"))
    debugger.insert_breakpoint(debugger.lookup_symbol("take"))
    continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    vec = debugger.read_vector_registers(info.pid)
    assert len(vec.xmm) == 16 and all(len(x) == 16 for x in vec.xmm)
    assert vec.xmm[0][:8] == struct.pack("<d", 1.5)
    assert len(vec.st) == 8 and all(len(x) == 10 for x in vec.st)
    assert "mxcsr" in vec.control
    if cpu_has("avx"):
        assert len(vec.ymm) == 16, "the CPU has AVX but no ymm registers were read"
    assert continue_to_exit(debugger, events).code == 0
    assert "took 1.50\n" in events.output()


def test_vector_registers_ymm(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    if not cpu_has("avx"):
        pytest.skip("the CPU has no AVX")
    info = launch(debugger, builder.build("avx", extra=["-mavx"]))
    debugger.insert_breakpoint(debugger.lookup_symbol("take256"))
    continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    vec = debugger.read_vector_registers(info.pid)
    assert vec.xmm[0] == struct.pack("<2d", 1.0, 2.0)
    # ymm holds the full 256 bits: the low half is xmm, the high half comes from the AVX state.
    assert vec.ymm[0] == struct.pack("<4d", 1.0, 2.0, 3.0, 4.0)
    assert all(len(y) == 32 and y[:16] == x for y, x in zip(vec.ymm, vec.xmm, strict=True))
    assert continue_to_exit(debugger, events).code == 0
    assert "took 1.0 2.0 3.0 4.0\n" in events.output()


def _names(debugger: IDebugger, tid: int) -> list[str | None]:
    return [frame.symbol.name for frame in debugger.backtrace(tid)]


def test_backtrace_after_prologue(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    prog = builder.build("calls")
    info = launch(debugger, prog)
    insns = objdump_function(prog, "leaf")
    # The first instruction after `mov rbp, rsp`: the frame is complete there.
    index = next(
        i for i, ins in enumerate(insns) if ins.mnemonic == "mov" and ins.operands == "rbp,rsp"
    )
    address = load_base(info.pid, prog) + insns[index + 1].address
    debugger.insert_breakpoint(address)
    continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    frames = debugger.backtrace(info.pid)
    assert [f.level for f in frames] == list(range(len(frames)))
    assert frames[0].pc == address
    assert _names(debugger, info.pid)[:4] == ["leaf", "mid", "top", "main"]
    assert len(debugger.backtrace(info.pid, limit=2)) == 2


def test_backtrace_at_function_entry(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    info = launch(debugger, builder.build("calls"))
    addr = debugger.lookup_symbol("leaf")
    debugger.insert_breakpoint(addr)
    continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    frames = debugger.backtrace(info.pid)
    assert frames[0].pc == addr
    assert frames[0].sp == debugger.read_registers(info.pid)["rsp"]
    # rbp still belongs to mid here: a naive frame-pointer walk would skip mid.
    assert _names(debugger, info.pid)[:4] == ["leaf", "mid", "top", "main"]


@pytest.mark.parametrize("function", ["main", "add", "mid"])
def test_disassembly_matches_objdump(debugger: IDebugger, builder: Builder, function: str) -> None:
    prog = builder.build("calls")
    info = launch(debugger, prog)
    reference = objdump_function(prog, function)
    base = load_base(info.pid, prog)
    start = debugger.lookup_symbol(function)
    assert start == base + reference[0].address
    ours = debugger.disassemble(start, len(reference))
    assert len(ours) == len(reference)
    for mine, theirs in zip(ours, reference, strict=True):
        assert (mine.address, mine.size, mine.raw) == (
            base + theirs.address,
            len(theirs.raw),
            theirs.raw,
        )
        assert mine.mnemonic == theirs.mnemonic, f"{mine} vs objdump {theirs}"
    calls = [i for i in ours if i.mnemonic == "call"]
    if function == "mid":
        assert calls and calls[0].target is not None and calls[0].target.name == "leaf"
    att = debugger.disassemble(start, 2, syntax="att")
    assert any("%rbp" in i.operands for i in att)
