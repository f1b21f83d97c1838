"""A breakpoint hit over gdbserver is resumed past by emulating the instruction under it
(remote/stepover.py) where that instruction is one we emulate, and by a single-step where
not: with a breakpoint on every instruction of a function called in a loop, both kinds
in turn, the program ends as it does without a debugger and every hit is seen. While a
watchpoint is in, the instruction is stepped: its write is the watchpoint's hit."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import capstone
import pytest
from elftools.elf.elffile import ELFFile

from aliceserver.debuggers.events import Event, Exited, Stopped, StopReason
from aliceserver.debuggers.eventsource import Subscription
from aliceserver.debuggers.model import WatchKind
from aliceserver.debuggers.ptrace.engine import PtraceDebugger
from aliceserver.debuggers.remote.connection import TcpChannel
from tests.support.build import Builder
from tests.support.gdbserver import gdbserver, runtime_address

pytestmark = pytest.mark.timeout(120)
CALLS = 6


def _instructions(program: Path, name: str) -> list[tuple[int, str]]:
    """(offset in the function, mnemonic and operands) of each of its instructions."""
    with program.open("rb") as stream:
        elf = ELFFile(stream)
        symbol = elf.get_section_by_name(".symtab").get_symbol_by_name(name)[0]  # type: ignore[union-attr]
        text = elf.get_section_by_name(".text")
        assert text is not None
        start = symbol["st_value"] - text["sh_addr"]
        code = text.data()[start : start + symbol["st_size"]]
    disassembler = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    return [(insn.address, f"{insn.mnemonic} {insn.op_str}") for insn in disassembler.disasm(code, 0)]


def test_breakpoints_on_every_instruction_are_each_hit_and_the_program_runs_as_without(
    builder: Builder, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes: list[bytes] = []
    write = TcpChannel.write

    def recorded(channel: TcpChannel, data: bytes) -> None:
        writes.append(data)
        write(channel, data)

    monkeypatch.setattr(TcpChannel, "write", recorded)
    program = builder.build("stepover_loop")
    alone = subprocess.run([str(program), str(CALLS)], check=False).returncode
    instructions = _instructions(program, "mix")
    mnemonics = {text.split()[0] for _, text in instructions}
    assert {"push", "mov", "ret"} <= mnemonics and mnemonics - {"push", "mov", "ret", "nop", "endbr64"}
    with gdbserver(program, [str(CALLS)]) as server:
        mix = runtime_address(server, program, "mix")
        debugger = PtraceDebugger()
        events = debugger.subscribe()
        try:
            debugger.connect_remote(server.address, program=str(program))
            for offset, _ in instructions:
                debugger.insert_location_breakpoint(f"*{mix + offset:#x}")
            hits: list[int] = []
            debugger.resume()
            while True:
                event: Event = events.get(timeout=30)
                if isinstance(event, Exited):
                    break
                if isinstance(event, Stopped):
                    assert event.reason is StopReason.BREAKPOINT, event
                    assert event.address is not None
                    hits.append(event.address - mix)
                    debugger.resume()
        finally:
            debugger.close()
    assert event.code == alone
    assert hits == [offset for offset, _ in instructions] * CALLS
    # both ways past a breakpoint were taken: emulated (registers written with the
    # continue) and stepped (the breakpoint out for a single-step)
    assert any(b"$G" in data and b"$vCont;c" in data for data in writes)
    assert any(b"$z0" in data and b"$vCont;s" in data for data in writes)


def _stop(events: Subscription) -> Stopped:
    event: Event = events.get(timeout=30)
    while not isinstance(event, Stopped):
        assert not isinstance(event, Exited), event
        event = events.get(timeout=30)
    return event


def test_a_watchpoint_sees_the_write_of_the_instruction_under_a_breakpoint(builder: Builder) -> None:
    program = builder.build("stepover_loop")
    instructions = _instructions(program, "mix")
    at, slot = next((at, int(found.group(1), 16)) for at, (_, text) in enumerate(instructions)
                    if (found := re.fullmatch(r"mov qword ptr \[rbp - (0x[0-9a-f]+)\], rdi", text)))  # fmt: skip
    store, after = instructions[at][0], instructions[at + 1][0]
    with gdbserver(program, [str(CALLS)]) as server:
        mix = runtime_address(server, program, "mix")
        debugger = PtraceDebugger()
        events = debugger.subscribe()
        try:
            debugger.connect_remote(server.address, program=str(program))
            debugger.insert_location_breakpoint(f"*{mix + store:#x}")
            debugger.resume()
            _stop(events)
            debugger.resume()
            second = _stop(events)  # its slot holds the first call's argument: this one differs
            rbp = debugger.read_registers(second.thread_id)["rbp"]
            debugger.insert_watchpoint(rbp - slot, 8, WatchKind.WRITE)
            debugger.resume()
            watched = _stop(events)
        finally:
            debugger.close()
    # as gdb over gdbserver: the watchpoint's stop just after the store, not the next hit
    assert watched.reason is StopReason.WATCHPOINT and watched.address == mix + after, watched
