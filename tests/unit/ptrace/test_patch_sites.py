"""Jump patch sites on hand-assembled functions, the jump's bytes, masking, and where an
area may go in a made-up address space."""

from __future__ import annotations

from typing import Any

import pytest

from aliceserver.debuggers.core.writer import MemoryMapping
from aliceserver.debuggers.ptrace.patches.area import PAGE, REACH, Room, free_gaps, placements
from aliceserver.debuggers.ptrace.patches.install import InstalledPatch, PatchTable, jump_bytes
from aliceserver.debuggers.ptrace.patches.sites import Refusal, SitePlan, plan_site
from aliceserver.errors import TargetError

BASE = 0x401000
MOV_EAX_1 = bytes.fromhex("b801000000")
RET = b"\xc3"


def refusal(code: bytes, at: int = BASE, **options: Any) -> str:
    found = plan_site(code, BASE, at, **options)
    assert isinstance(found, Refusal), found
    return found.reason


def test_one_long_instruction_is_the_whole_span() -> None:
    plan = plan_site(MOV_EAX_1 + RET, BASE, BASE)
    assert isinstance(plan, SitePlan)
    assert (plan.original, plan.end) == (MOV_EAX_1, BASE + 5)
    assert [i.text for i in plan.instructions] == ["mov eax, 1"]


def test_short_instructions_are_taken_whole_until_five_bytes() -> None:
    prologue = bytes.fromhex("554889e54883ec10")  # push rbp; mov rbp, rsp; sub rsp, 16
    plan = plan_site(prologue + RET, BASE, BASE)
    assert isinstance(plan, SitePlan)
    assert plan.original == prologue
    assert [i.address for i in plan.instructions] == [BASE, BASE + 1, BASE + 4]


def test_a_branch_into_the_span_is_refused() -> None:
    # xor eax, eax; 1: inc rax; cmp rax, 3; jl 1b; ret
    loop = bytes.fromhex("31c048ffc04883f8037cf7c3")
    assert f"jumps to {BASE + 2:#x}" in refusal(loop)
    assert isinstance(plan_site(loop, BASE, BASE + 2), SitePlan)  # the target itself is fine


def test_branches_from_the_functions_other_parts_and_landing_pads_count() -> None:
    prologue = bytes.fromhex("554889e54883ec10") + RET
    cold = 0x402000  # f.cold: jmp BASE+1, back into the middle of the span
    back = b"\xe9" + (BASE + 1 - (cold + 5)).to_bytes(4, "little", signed=True)
    assert isinstance(plan_site(prologue, BASE, BASE), SitePlan)
    assert f"({cold:#x}" not in refusal(prologue, other_parts=[(cold, back)])
    assert f"jumps to {BASE + 1:#x}" in refusal(prologue, other_parts=[(cold, back)])
    assert "cannot be decoded" in refusal(prologue, other_parts=[(cold, b"\x06")])
    pad = refusal(prologue, landing_points=[BASE + 4, BASE + 0x40])
    assert pad.startswith(f"{BASE + 4:#x}, where the program lands without a jump")
    assert isinstance(plan_site(prologue, BASE, BASE, landing_points=[BASE, BASE + 8]), SitePlan)


def test_indirect_jumps_allow_only_single_instruction_spans() -> None:
    table_jump = bytes.fromhex("ffe0")  # jmp rax
    assert "indirect jump" in refusal(bytes.fromhex("554889e5") + MOV_EAX_1 + table_jump)
    assert isinstance(plan_site(MOV_EAX_1 + table_jump, BASE, BASE), SitePlan)


def test_a_call_returning_inside_the_span_is_refused() -> None:
    code = bytes.fromhex("ffd0") + MOV_EAX_1 + RET  # call rax; mov eax, 1; ret
    assert f"returns to {BASE + 2:#x}" in refusal(code)


def test_spans_that_leave_the_code_are_refused() -> None:
    assert "past the end of its function" in refusal(bytes.fromhex("31c090"))
    assert f"ends (ret at {BASE + 2:#x})" in refusal(bytes.fromhex("31c0c3909090"))
    assert "ends (jmp" in refusal(bytes.fromhex("31c0ebfc909090"))


def test_addresses_that_are_no_instruction_are_refused() -> None:
    assert "not the start of an instruction" in refusal(MOV_EAX_1 + RET, BASE + 1)
    assert "not inside the function" in refusal(MOV_EAX_1 + RET, BASE + 6)
    assert "cannot be decoded" in refusal(MOV_EAX_1 + b"\x06" + RET)


def test_instructions_that_cannot_move_are_refused() -> None:
    jrcxz = bytes.fromhex("e305")  # to the ret after the span
    assert "cannot run elsewhere" in refusal(jrcxz + MOV_EAX_1 + RET)
    load = bytes.fromhex("488b0500000000")  # mov rax, [rip]
    assert isinstance(plan_site(load + RET, BASE, BASE, displaced_near=BASE + (1 << 20)), SitePlan)
    assert "cannot run elsewhere" in refusal(load + RET, displaced_near=BASE + (1 << 33))


def test_the_jump_reaches_its_target_and_is_padded_with_int3() -> None:
    assert jump_bytes(0x1000, 0x2000) == b"\xe9" + (0x2000 - 0x1005).to_bytes(4, "little")
    assert (
        jump_bytes(0x2000, 0x1000, 8)
        == b"\xe9" + (-0x1005).to_bytes(4, "little", signed=True) + b"\xcc" * 3
    )
    with pytest.raises(TargetError, match="out of a jump's reach"):
        jump_bytes(0x1000, 0x1005 + (1 << 31))
    with pytest.raises(TargetError, match="needs 5 bytes, not 4"):
        jump_bytes(0x1000, 0x2000, 4)


def test_reads_show_the_original_bytes_and_fork_children_get_them_back() -> None:
    table = PatchTable()
    original = bytes(range(1, 9))
    written = jump_bytes(0x1000, 0x5000, 8)
    table.by_address[0x1000] = InstalledPatch(0x1000, original, written, 0x5000)
    memory = bytearray(b"\xaa" * 4) + bytearray(written) + bytearray(b"\xbb" * 4)  # at 0xffc
    assert table.mask(0xFFC, bytes(memory)) == b"\xaa" * 4 + original + b"\xbb" * 4
    assert table.mask(0x1006, bytes(memory[10:14])) == original[6:] + b"\xbb" * 2
    assert table.mask(0xFF0, b"\x00" * 12) == b"\x00" * 12
    writes: list[tuple[int, bytes]] = []
    table.strip_child(lambda address, data: writes.append((address, data)))
    assert writes == [(0x1000, original)]
    assert [p.address for p in table.overlapping(0x1007, 4)] == [0x1000]
    assert table.overlapping(0x1008, 4) == []


def mapping(start: int, end: int, path: str = "") -> MemoryMapping:
    return MemoryMapping(start, end, "r-xp", 0, 0, path)


def test_areas_go_at_the_top_of_a_gap_below_the_module_within_reach() -> None:
    exe = [mapping(0x5555_5555_4000, 0x5555_5555_9000, "/bin/p")]
    heap = mapping(0x5555_5555_A000, 0x5555_5557_B000, "[heap]")
    lib = mapping(0x7FFF_F7C0_0000, 0x7FFF_F7E0_0000, "/lib/libc.so.6")
    stack = mapping(0x7FFF_FFFD_E000, 0x7FFF_FFFF_F000, "[stack]")
    maps = [*exe, heap, lib, stack]
    places = placements(maps, 0x5555_5555_4000, 0x5555_5555_9000, 2 * PAGE, 1 << 20)
    assert places[0] == 0x5555_5555_4000 - 2 * PAGE
    for place in places:
        assert max(place + 2 * PAGE, 0x5555_5555_9000) - min(place, 0x5555_5555_4000) <= REACH
    # For the library: below it first, and never in the room the stack grows into (the
    # 130 MiB between the library and the stack).
    places = placements(maps, lib.start, lib.end, PAGE, 1 << 20)
    assert places[0] == lib.start - PAGE
    assert all(p < lib.start for p in places)
    lower_stack = mapping(lib.end + (512 << 20), lib.end + (513 << 20), "[stack]")
    places = placements([*exe, heap, lib, lower_stack], lib.start, lib.end, PAGE, 1 << 20)
    assert lower_stack.start - (256 << 20) - PAGE in places


def test_gaps_skip_what_is_mapped() -> None:
    maps = [
        mapping(0x20_0000, 0x30_0000),
        mapping(0x30_0000, 0x40_0000),
        mapping(0x50_0000, 0x60_0000),
    ]
    gaps = free_gaps(maps, 0x10_0000)
    assert gaps[:2] == [(0x10_0000, 0x20_0000), (0x40_0000, 0x50_0000)]
    assert gaps[2][0] == 0x60_0000


def test_room_is_taken_fresh_then_from_what_was_given_back() -> None:
    room = Room(64)
    assert [room.take(16, 16), room.take(8, 8), room.take(16, 16)] == [0, 16, 32]
    assert room.take(32, 16) is None  # 48..64 holds 16 at most
    room.give_back(0, 16)
    assert room.take(4, 8) == 0  # first fit, the rest of the block kept
    assert room.take(8, 8) == 8
    assert room.take(4, 4) == 4
    assert room.take(16, 16) == 48
    assert room.take(1, 1) is None
