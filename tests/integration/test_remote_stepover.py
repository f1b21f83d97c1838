"""A breakpoint hit over gdbserver is resumed past with a single-step of its instruction
(z0, vCont;s, Z0): a watchpoint that instruction triggers is the stop to report, as gdb
does, not a plain step to go on from."""

from __future__ import annotations

import re
from pathlib import Path

import capstone
import pytest
from elftools.elf.elffile import ELFFile

from aliceserver.debuggers.events import Event, Exited, Stopped, StopReason
from aliceserver.debuggers.eventsource import Subscription
from aliceserver.debuggers.model import WatchKind
from aliceserver.debuggers.ptrace.engine import PtraceDebugger
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
