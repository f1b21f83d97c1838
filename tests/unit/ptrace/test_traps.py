"""Trap bookkeeping: several logical breakpoints per physical trap, masking of int3 bytes."""

import pytest

from aliceserver.debuggers.ptrace.traps import LogicalBreakpoint, TrapTable
from aliceserver.errors import TargetError


def test_logical_breakpoints_share_one_trap() -> None:
    table = TrapTable()
    first = LogicalBreakpoint(table.new_id(), 0x1000)
    second = LogicalBreakpoint(table.new_id(), 0x1000, temporary=True)
    trap = table.add(first, b"\x55")
    assert table.add(second, b"\x55") is trap
    assert [bp.id for bp in trap.logical] == [1, 2]
    table.remove(first.id)
    assert trap.logical == [second] and trap.wanted
    table.remove(second.id)
    assert not trap.logical and not trap.wanted


def test_disabled_breakpoints_do_not_want_the_trap() -> None:
    table = TrapTable()
    bp = LogicalBreakpoint(table.new_id(), 0x2000, enabled=False)
    trap = table.add(bp, b"\x90")
    assert not trap.wanted
    bp.enabled = True
    assert trap.wanted


def test_internal_ids_count_down_and_stay_out_of_the_user_list() -> None:
    table = TrapTable()
    internal = LogicalBreakpoint(table.new_internal_id(), 0x3000, internal=True)
    user = LogicalBreakpoint(table.new_id(), 0x3000)
    table.add(internal, b"\x55")
    table.add(user, b"\x55")
    assert internal.id == -1 and user.id == 1
    assert table.user_breakpoints() == [user]


def test_unknown_id_is_a_target_error() -> None:
    with pytest.raises(TargetError, match="no breakpoint number 7"):
        TrapTable().remove(7)


def test_mask_restores_original_bytes_of_inserted_traps_only() -> None:
    table = TrapTable()
    inserted = table.add(LogicalBreakpoint(table.new_id(), 0x10), b"\x55")
    inserted.inserted = True
    pending = table.add(LogicalBreakpoint(table.new_id(), 0x12), b"\x48")
    memory = bytes([0x90, 0xCC, 0x90, 0xCC])  # 0x0f..0x12 as the process has it
    masked = table.mask(0x0F, memory)
    assert masked == bytes([0x90, 0x55, 0x90, 0xCC])
    assert not pending.inserted
    assert table.mask(0x20, b"\xcc") == b"\xcc"  # outside every trap


def test_mask_of_a_read_shorter_than_the_trap_list_finds_its_traps() -> None:
    # Reads shorter than the list look their own addresses up: the same bytes either way.
    table = TrapTable()
    for address in range(0x100, 0x200, 2):
        table.add(LogicalBreakpoint(table.new_id(), address), bytes([address & 0xFF])).inserted = True
    memory = b"\xcc\x90" * 4
    assert table.mask(0x110, memory) == bytes([0x10, 0x90, 0x12, 0x90, 0x14, 0x90, 0x16, 0x90])
    assert table.mask(0x300, memory) == memory
