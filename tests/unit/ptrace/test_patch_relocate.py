"""relocate() on hand-picked encodings: what each displaced instruction becomes elsewhere."""

from __future__ import annotations

import struct

import capstone  # type: ignore[import-untyped, unused-ignore]
import pytest

from aliceserver.debuggers.ptrace.patches.relocate import (
    RefusalKind,
    Unrelocatable,
    relocatable,
    relocate,
    relocation,
)

SITE = 0x7F12_3456_1000  # a library's code: the return address has a high half
NEAR = SITE + 0x4000_0000  # a patch area 1 GiB above


def listing(code: bytes, address: int) -> list[str]:
    decoder = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    return [f"{i.mnemonic} {i.op_str}".strip() for i in decoder.disasm(code, address)]


def rip_target(code: bytes, address: int) -> int:
    """Where the (only) instruction's rip-relative operand points."""
    decoder = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    decoder.detail = True
    insn = next(decoder.disasm(code, address))
    (disp,) = struct.unpack_from("<i", code, insn.disp_offset)
    return int(address + insn.size + disp)


def test_rip_relative_operand_keeps_its_target() -> None:
    lea = bytes.fromhex("488d0510000000")  # lea rax, [rip + 0x10]
    moved = relocate(lea, SITE, NEAR)
    assert len(moved) == len(lea)
    assert rip_target(moved, NEAR) == rip_target(lea, SITE) == SITE + 0x17


def test_rip_relative_operand_with_an_immediate_after_it() -> None:
    store = bytes.fromhex("c70510000000" + "44332211")  # mov dword [rip + 0x10], 0x11223344
    moved = relocate(store, SITE, SITE - 0x1000)
    assert rip_target(moved, SITE - 0x1000) == SITE + 0x1A
    assert moved.endswith(bytes.fromhex("44332211"))


def test_rip_relative_operand_out_of_range_is_refused() -> None:
    lea = bytes.fromhex("488d0510000000")
    with pytest.raises(Unrelocatable) as refusal:
        relocate(lea, SITE, SITE + 0x8000_0100)
    assert refusal.value.kind is RefusalKind.OUT_OF_RANGE
    assert "lea rax, [rip + 0x10]" in refusal.value.reason
    assert relocatable(lea, SITE) is None  # fine where the area is near


def test_jcc_rel8_is_widened_to_the_same_target() -> None:
    moved = relocate(bytes.fromhex("7405"), SITE, NEAR)  # je +5
    assert moved[:2] == b"\x0f\x84" and len(moved) == 6
    assert listing(moved, NEAR) == [f"je {SITE + 7:#x}"]


def test_jmp_rel8_and_rel32_keep_their_targets() -> None:
    assert listing(relocate(bytes.fromhex("ebfe"), SITE, NEAR), NEAR) == [f"jmp {SITE:#x}"]
    moved = relocate(bytes.fromhex("0f8f00010000"), SITE, NEAR)  # jg +0x100
    assert listing(moved, NEAR) == [f"jg {SITE + 0x106:#x}"]


def test_bnd_prefix_is_dropped() -> None:
    assert listing(relocate(bytes.fromhex("f2e900000000"), SITE, NEAR), NEAR) == [
        f"jmp {SITE + 6:#x}"
    ]


def test_call_pushes_the_original_return_address() -> None:
    moved = relocate(bytes.fromhex("e810000000"), SITE, NEAR)  # call +0x10
    # push sign-extends 0x34561005; the mov then writes the high half 0x7f12
    assert listing(moved, NEAR) == [
        "push 0x34561005",
        "mov dword ptr [rsp + 4], 0x7f12",
        f"jmp {SITE + 0x15:#x}",
    ]


def test_indirect_calls_become_jumps_after_the_push() -> None:
    moved = relocate(bytes.fromhex("ff1510000000"), SITE, NEAR)  # call [rip + 0x10]
    assert listing(moved, NEAR)[2].startswith("jmp qword ptr [rip")
    assert rip_target(moved[13:], NEAR + 13) == SITE + 0x16
    assert listing(relocate(bytes.fromhex("41ffd3"), SITE, NEAR), NEAR)[2] == "jmp r11"
    # the push moved rsp by 8: the operand [rsp + 0x20] is now [rsp + 0x28]
    assert (
        listing(relocate(bytes.fromhex("ff542420"), SITE, NEAR), NEAR)[2]
        == "jmp qword ptr [rsp + 0x28]"
    )


def test_branch_into_the_displaced_code_goes_to_the_copy() -> None:
    code = bytes.fromhex("4889e57402ebfc")  # mov rbp, rsp; je +2 (the end); jmp to the je
    moved = relocation(code, SITE, NEAR)
    lines = listing(moved.code, NEAR)
    assert lines[1] == f"je {SITE + len(code):#x}"
    assert lines[2] == f"jmp {NEAR + 3:#x}"  # the je's copy
    assert moved.origins == ((0, 0), (3, 3), (9, 5))


@pytest.mark.parametrize(
    ("code", "kind", "words"),
    [
        ("e2fe", RefusalKind.SHORT_ONLY, "loop"),
        ("e305", RefusalKind.SHORT_ONLY, "jrcxz"),
        ("c7f800000000", RefusalKind.OWN_ADDRESS, "xbegin"),
        ("0f05", RefusalKind.OWN_ADDRESS, "syscall"),
        ("cc", RefusalKind.BREAKPOINT, "int3"),
        ("66e900000000", RefusalKind.PREFIX, "prefix"),
        ("e80000000090", RefusalKind.CALL_NOT_LAST, "return into"),
        ("ffd4", RefusalKind.CALL_USES_RSP, "call rsp"),
        ("ff1424", RefusalKind.CALL_USES_RSP, "rsp"),
        ("ff1c2500000000", RefusalKind.FAR, "far"),
        ("eb014889e5", RefusalKind.INTO_INSTRUCTION, "into an instruction"),
        ("48", RefusalKind.UNDECODABLE, "no whole"),
    ],
)
def test_refusals_say_why(code: str, kind: RefusalKind, words: str) -> None:
    raw = bytes.fromhex(code)
    with pytest.raises(Unrelocatable) as refusal:
        relocate(raw, SITE, NEAR)
    assert refusal.value.kind is kind
    assert words in refusal.value.reason
    assert relocatable(raw, SITE) == refusal.value.reason


def test_plain_instructions_are_copied() -> None:
    code = bytes.fromhex("f30f1efa554889e54883ec10")  # endbr64; push; mov; sub
    assert relocate(code, SITE, NEAR) == code
