"""Software breakpoints: hits, pc rewind, hit counts, shared traps, temporary, disabled,
conditions, removal, hidden traps, instruction steps and register writes."""

from __future__ import annotations

import pytest

from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.events import Stopped, StopReason
from aliceserver.debuggers.model import BreakpointInfo
from tests.support.build import Builder
from tests.support.elf import file_bytes, load_base, objdump_function, symbol_value
from tests.support.events import EventLog
from tests.support.session import continue_to_exit, continue_to_stop, launch

pytestmark = [pytest.mark.timeout(60), pytest.mark.both_backends]

MASK32 = 0xFFFFFFFF


def bp_info(debugger: IDebugger, bp_id: int) -> BreakpointInfo:
    [info] = [b for b in debugger.breakpoints() if b.id == bp_id]
    return info


def test_breakpoint_hits_rewind_pc_and_count(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    info = launch(debugger, builder.build("calls"), ["3"])
    addr = debugger.lookup_symbol("add")
    bp = debugger.insert_breakpoint(addr)
    assert (bp.address, bp.enabled, bp.temporary, bp.hit_count) == (addr, True, False, 0)
    for n in range(1, 4):
        stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
        assert (stop.thread_id, stop.breakpoint_ids, stop.address) == (info.pid, (bp.id,), addr)
        regs = debugger.read_registers(info.pid)
        assert regs["rip"] == addr
        assert regs["rsi"] & MASK32 == n - 1  # add(sum, i): i in esi
        assert bp_info(debugger, bp.id).hit_count == n
    exited = continue_to_exit(debugger, events)
    assert exited.code == 0
    assert "sum=3\n" in events.output()


def test_several_breakpoints_at_one_address(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    launch(debugger, builder.build("calls"), ["3"])
    addr = debugger.lookup_symbol("add")
    first = debugger.insert_breakpoint(addr)
    second = debugger.insert_breakpoint(addr)
    assert first.id != second.id
    for n in (1, 2):
        stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
        assert sorted(stop.breakpoint_ids) == sorted((first.id, second.id))
        assert bp_info(debugger, first.id).hit_count == n
        assert bp_info(debugger, second.id).hit_count == n
    debugger.remove_breakpoint(first.id)
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert stop.breakpoint_ids == (second.id,) and stop.address == addr
    assert bp_info(debugger, second.id).hit_count == 3
    assert continue_to_exit(debugger, events).code == 0
    assert "sum=3\n" in events.output()


def test_temporary_breakpoint_vanishes_after_hit(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    launch(debugger, builder.build("calls"), ["3"])
    addr = debugger.lookup_symbol("add")
    temp = debugger.insert_breakpoint(addr, temporary=True)
    assert temp.temporary
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert stop.breakpoint_ids == (temp.id,) and stop.address == addr
    assert debugger.read_registers(stop.thread_id)["rip"] == addr
    assert temp.id not in [b.id for b in debugger.breakpoints()]
    assert debugger.read_memory(addr, 1) != b"\xcc"
    assert continue_to_exit(debugger, events).code == 0
    assert "sum=3\n" in events.output()


def test_disabled_breakpoint_does_not_stop(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    launch(debugger, builder.build("calls"), ["3"])
    bp = debugger.insert_breakpoint(debugger.lookup_symbol("add"), enabled=False)
    assert not bp.enabled
    assert continue_to_exit(debugger, events).code == 0
    assert "sum=3\n" in events.output()
    assert not bp_info(debugger, bp.id).enabled


def test_disable_and_enable(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    launch(debugger, builder.build("calls"), ["4"])
    addr = debugger.lookup_symbol("add")
    bp = debugger.insert_breakpoint(addr)
    continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert not debugger.enable_breakpoint(bp.id, False).enabled
    assert debugger.enable_breakpoint(bp.id, True).enabled  # re-enabled while sitting on it
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert stop.breakpoint_ids == (bp.id,)
    assert debugger.read_registers(stop.thread_id)["rsi"] & MASK32 == 1  # the second call
    debugger.enable_breakpoint(bp.id, False)
    assert continue_to_exit(debugger, events).code == 0
    assert "sum=6\n" in events.output()
    assert bp_info(debugger, bp.id).hit_count == 2


def test_condition_counts_hits_but_stops_only_when_true(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    info = launch(debugger, builder.build("calls"), ["5"])
    calls: list[int] = []

    def third_call_only(tid: int) -> bool:
        calls.append(tid)
        return len(calls) == 3

    bp = debugger.insert_breakpoint(debugger.lookup_symbol("add"), condition=third_call_only)
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert stop.breakpoint_ids == (bp.id,)
    assert debugger.read_registers(info.pid)["rsi"] & MASK32 == 2  # i == 2 on the third call
    assert continue_to_exit(debugger, events).code == 0
    assert calls == [info.pid] * 5
    assert bp_info(debugger, bp.id).hit_count == 5
    assert "sum=10\n" in events.output()


def test_remove_breakpoint(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    launch(debugger, builder.build("calls"), ["3"])
    addr = debugger.lookup_symbol("add")
    bp = debugger.insert_breakpoint(addr)
    continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    debugger.remove_breakpoint(bp.id)
    assert debugger.breakpoints() == []
    assert continue_to_exit(debugger, events).code == 0
    assert "sum=3\n" in events.output()


def test_memory_hides_traps(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    prog = builder.build("calls")
    info = launch(debugger, prog)
    add = debugger.lookup_symbol("add")
    link_add = symbol_value(prog, "add")
    assert add == load_base(info.pid, prog) + link_add
    original = file_bytes(prog, link_add, 16)
    assert debugger.read_memory(add, 16) == original
    insns = objdump_function(prog, "add")
    debugger.insert_breakpoint(add)
    debugger.insert_breakpoint(add + insns[1].address - link_add)  # the second instruction
    assert debugger.read_memory(add, 16) == original
    assert debugger.read_memory(add - 3, 8) == file_bytes(prog, link_add - 3, 8)
    assert debugger.disassemble(add, 1)[0].mnemonic == insns[0].mnemonic
    # Still hidden while stopped on another trap.
    debugger.insert_breakpoint(debugger.lookup_symbol("oracle_probe"))
    continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert debugger.read_memory(add, 16) == original


def test_step_instruction(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    info = launch(debugger, builder.build("calls"), ["3"])
    addr = debugger.lookup_symbol("add")
    bp = debugger.insert_breakpoint(addr)
    continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    pc = addr
    for _ in range(4):  # the first step leaves the trap's own address
        size = debugger.disassemble(pc, 1)[0].size
        debugger.step_instruction(info.pid)
        stop = events.wait_for(Stopped)
        assert stop.reason == StopReason.STEP and stop.thread_id == info.pid
        rip = debugger.read_registers(info.pid)["rip"]
        assert rip == pc + size and stop.address == rip
        pc = rip
    # The trap is back: the next call stops again.
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert stop.breakpoint_ids == (bp.id,) and stop.address == addr
    debugger.remove_breakpoint(bp.id)
    assert continue_to_exit(debugger, events).code == 0
    assert "sum=3\n" in events.output()


def test_write_register_changes_the_program(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    info = launch(debugger, builder.build("calls"), ["1"])
    bp = debugger.insert_breakpoint(debugger.lookup_symbol("add"))
    continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    debugger.write_register(info.pid, "rax", 0x1122334455667788)
    assert debugger.read_registers(info.pid)["rax"] == 0x1122334455667788
    debugger.write_register(info.pid, "rdi", 100)  # add(0, 0) becomes add(100, 0)
    assert debugger.read_registers(info.pid)["rdi"] == 100
    debugger.remove_breakpoint(bp.id)
    assert continue_to_exit(debugger, events).code == 0
    assert "sum=100\n" in events.output()


def test_insert_breakpoint_while_running(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    info = launch(debugger, builder.build("spin"))
    debugger.resume()
    events.settle(0.2)
    assert debugger.is_running()
    addr = debugger.lookup_symbol("spin_once")
    bp = debugger.insert_breakpoint(addr)
    stop = events.wait_for(Stopped)
    assert stop.reason == StopReason.BREAKPOINT and stop.breakpoint_ids == (bp.id,)
    assert debugger.read_registers(info.pid)["rip"] == addr
    debugger.remove_breakpoint(bp.id)
    debugger.resume()
    events.settle(0.2)
    assert debugger.is_running() and len(events.of_type(Stopped)) == 1
    debugger.kill()
