"""The DW_CFA_* interpreter, pointer encodings and the CFI expression evaluator, on
hand-assembled bytes."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aliceserver.debuggers.symbols.dwarf.cfa_program import (
    Bases,
    CfaRule,
    Cie,
    Fde,
    Reader,
    Rule,
    RuleKind,
    UnwindRow,
    fde_rows,
    read_encoded,
)
from aliceserver.debuggers.symbols.dwarf.unwind import evaluate
from aliceserver.errors import TargetError

# The usual x86-64 CIE: CFA = rsp+8, return address at CFA-8.
CIE_X86 = bytes([0x0C, 7, 8, 0x80 | 16, 1])
LOW, HIGH = 0x1000, 0x1100


def uleb(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def sleb(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        done = (value == 0 and not byte & 0x40) or (value == -1 and byte & 0x40)
        out.append(byte | (0 if done else 0x80))
        if done:
            return bytes(out)


def rows(program: bytes, cie_program: bytes = CIE_X86, code_align: int = 1) -> list[UnwindRow]:
    cie = Cie(
        offset=0,
        code_align=code_align,
        data_align=-8,
        return_column=16,
        fde_encoding=0x1B,
        lsda_encoding=0xFF,
        has_augmentation_data=True,
        signal_frame=False,
        address_size=8,
        instructions=cie_program,
    )
    fde = Fde(0x20, cie, LOW, HIGH, program, instructions_vaddr=0x5000)
    return fde_rows(fde, Bases(0x4000))


def at(table: list[UnwindRow], pc: int) -> UnwindRow:
    return next(r for r in table if r.low <= pc < r.high)


def test_prologue_rows_cover_the_fde() -> None:
    # push rbp; mov rbp, rsp; ... : the classic -O0 frame
    table = rows(bytes([0x41, 0x0E, 16, 0x86, 2, 0x43, 0x0D, 6]))
    assert [(r.low, r.high) for r in table] == [(0x1000, 0x1001), (0x1001, 0x1004), (0x1004, HIGH)]
    assert table[0].cfa == CfaRule(7, 8) and table[0].rule(6) is None
    assert table[1].cfa == CfaRule(7, 16) and table[1].rule(6) == Rule(RuleKind.OFFSET, -16)
    assert table[2].cfa == CfaRule(6, 16)
    assert all(r.rule(16) == Rule(RuleKind.OFFSET, -8) for r in table)


def test_def_cfa_sf_is_scaled_by_the_data_alignment_factor() -> None:
    # DW_CFA_def_cfa_sf r7, -3: offset = -3 * -8 = 24 (pyelftools gets this wrong)
    table = rows(bytes([0x12, 7]) + sleb(-3))
    assert table[0].cfa == CfaRule(7, 24)
    # DW_CFA_def_cfa_offset_sf -4 -> 32
    assert rows(bytes([0x13]) + sleb(-4))[0].cfa == CfaRule(7, 32)


def test_remember_and_restore_state_include_the_cfa() -> None:
    program = bytes(
        [0x41, 0x0E, 16, 0x83, 2]  # push rbx
        + [0x41, 0x0A, 0x0E, 8, 0xC3]  # remember; pop rbx (restore r3); CFA rsp+8
        + [0x41, 0x0B]  # restore_state after `ret`
    )
    table = rows(program)
    early_return = at(table, 0x1002)
    assert early_return.cfa == CfaRule(7, 8) and early_return.rule(3) is None
    after = at(table, 0x1003)
    assert after.cfa == CfaRule(7, 16) and after.rule(3) == Rule(RuleKind.OFFSET, -16)


def test_restore_state_without_remember_is_an_error() -> None:
    with pytest.raises(TargetError):
        rows(bytes([0x0B]))


def test_register_rules_of_every_kind() -> None:
    program = (
        bytes([0x05]) + uleb(12) + uleb(3)  # offset_extended r12, 3*-8
        + bytes([0x11]) + uleb(13) + sleb(-5)  # offset_extended_sf r13, -5*-8 = +40
        + bytes([0x2F]) + uleb(14) + uleb(2)  # GNU_negative_offset_extended r14: -(2*-8) = +16
        + bytes([0x14]) + uleb(15) + uleb(1)  # val_offset r15: CFA-8
        + bytes([0x15]) + uleb(5) + sleb(-1)  # val_offset_sf rdi: CFA+8
        + bytes([0x09]) + uleb(3) + uleb(10)  # register rbx in r10
        + bytes([0x07]) + uleb(0)  # undefined rax
        + bytes([0x08]) + uleb(6)  # same_value rbp
        + bytes([0x10]) + uleb(1) + uleb(2) + bytes([0x77, 0x10])  # expression rdx: breg7+16
        + bytes([0x16]) + uleb(2) + uleb(1) + bytes([0x31])  # val_expression rcx: lit1
        + bytes([0x2E]) + uleb(32)  # GNU_args_size
    )  # fmt: skip
    row = rows(program)[0]
    assert row.rule(12) == Rule(RuleKind.OFFSET, -24)
    assert row.rule(13) == Rule(RuleKind.OFFSET, 40)
    assert row.rule(14) == Rule(RuleKind.OFFSET, 16)
    assert row.rule(15) == Rule(RuleKind.VAL_OFFSET, -8)
    assert row.rule(5) == Rule(RuleKind.VAL_OFFSET, 8)
    assert row.rule(3) == Rule(RuleKind.REGISTER, 10)
    assert row.rule(0) == Rule(RuleKind.UNDEFINED)
    assert row.rule(6) == Rule(RuleKind.SAME_VALUE)
    assert row.rule(1) == Rule(RuleKind.EXPRESSION, 0, bytes([0x77, 0x10]))
    assert row.rule(2) == Rule(RuleKind.VAL_EXPRESSION, 0, bytes([0x31]))
    assert row.args_size == 32


def test_restore_goes_back_to_the_cie_rule() -> None:
    cie = CIE_X86 + bytes([0x86, 2])  # the CIE says rbp at CFA-16
    table = rows(bytes([0x41, 0x86, 4, 0x41, 0xC6, 0x41, 0x06]) + uleb(16), cie)
    assert at(table, 0x1001).rule(6) == Rule(RuleKind.OFFSET, -32)
    assert at(table, 0x1002).rule(6) == Rule(RuleKind.OFFSET, -16)
    assert at(table, 0x1003).rule(16) == Rule(RuleKind.OFFSET, -8)  # restore_extended r16


def test_advance_forms_and_set_loc() -> None:
    program = (
        bytes([0x02, 2, 0x0E, 16])  # advance_loc1 2
        + bytes([0x03]) + struct.pack("<H", 4) + bytes([0x0E, 24])  # advance_loc2 4 -> 0x1006
        + bytes([0x04]) + struct.pack("<I", 8) + bytes([0x0E, 32])  # advance_loc4 8 -> 0x100e
        + bytes([0x1D]) + struct.pack("<Q", 2) + bytes([0x0E, 40])  # MIPS_advance_loc8 -> 0x1010
    )  # fmt: skip
    # set_loc with the FDE's pcrel sdata4 encoding: relative to the operand's own address
    operand_vaddr = 0x5000 + len(program) + 1
    program += bytes([0x01]) + struct.pack("<i", 0x1020 - operand_vaddr) + bytes([0x0E, 48])
    table = rows(program)
    assert [(r.low, r.cfa.offset) for r in table] == [
        (0x1000, 8), (0x1002, 16), (0x1006, 24), (0x100E, 32), (0x1010, 40), (0x1020, 48)
    ]  # fmt: skip


def test_code_alignment_factor_scales_advances() -> None:
    table = rows(bytes([0x42, 0x0E, 16]), code_align=4)
    assert table[1].low == 0x1008


def test_def_cfa_expression_and_the_plt_expression() -> None:
    plt = bytes([0x77, 8, 0x80, 0, 0x3F, 0x1A, 0x3B, 0x2A, 0x33, 0x24, 0x22])
    row = rows(bytes([0x0F]) + uleb(len(plt)) + plt)[0]
    assert row.cfa.expression == plt
    # rsp + 8 + ((rip & 15) >= 11) << 3: 8 before the push of a PLT entry, 16 after it.
    sp = 0x7FFE0000
    assert evaluate(plt, {"rsp": sp, "rip": 0x1030}, _no_memory) == sp + 8
    assert evaluate(plt, {"rsp": sp, "rip": 0x103B}, _no_memory) == sp + 16


def test_unknown_instruction_is_an_error() -> None:
    with pytest.raises(TargetError):
        rows(bytes([0x3F]))


# --- pointer encodings ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("encoding", "data", "expected"),
    [
        (0x00, struct.pack("<Q", 0x123456789), 0x123456789),  # absptr
        (0x02, struct.pack("<H", 0xFFFE), 0xFFFE),  # udata2
        (0x03, struct.pack("<I", 0xFFFFFFF0), 0xFFFFFFF0),  # udata4
        (0x0B, struct.pack("<i", -16), (1 << 64) - 16),  # sdata4
        (0x0A, struct.pack("<h", -2), (1 << 64) - 2),  # sdata2
        (0x01, uleb(300), 300),  # uleb128
        (0x09, sleb(-300), (1 << 64) - 300),  # sleb128
        (0x1B, struct.pack("<i", -0x10), 0x4000 + 4 - 0x10),  # pcrel sdata4 (at offset 4)
        (0x3B, struct.pack("<i", 0x20), 0x9000 + 0x20),  # datarel sdata4
        (0x9B, struct.pack("<i", 0x10), 0x4000 + 4 + 0x10),  # indirect|pcrel: the slot
    ],
)
def test_pointer_encodings(encoding: int, data: bytes, expected: int) -> None:
    reader = Reader(b"\xaa" * 4 + data, 4)
    assert read_encoded(reader, encoding, Bases(0x4000, data=0x9000)) == expected
    assert reader.pos == 4 + len(data)


def test_aligned_and_missing_bases() -> None:
    reader = Reader(b"\x00" * 3 + b"\x00" * 5 + struct.pack("<Q", 77), 3)
    assert read_encoded(reader, 0x50, Bases(0)) == 77  # aligned: skips to offset 8
    with pytest.raises(TargetError):
        read_encoded(Reader(struct.pack("<i", 1)), 0x3B, Bases(0))  # datarel without base
    with pytest.raises(TargetError):
        read_encoded(Reader(b"\0" * 8), 0x07, Bases(0))  # no such format
    with pytest.raises(TargetError):
        read_encoded(Reader(b"\0\0"), 0x03, Bases(0))  # truncated


# --- expressions ------------------------------------------------------------------------------


def _no_memory(address: int, size: int) -> bytes:
    raise TargetError(f"no memory at {address:#x}")


def _memory(address: int, size: int) -> bytes:
    return ((address + 0x10) & (1 << 64) - 1).to_bytes(8, "little")[:size]


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        (bytes([0x35, 0x33, 0x1C]), 2),  # 5 - 3
        (bytes([0x33, 0x35, 0x1C]), (1 << 64) - 2),  # 3 - 5 wraps
        (bytes([0x08, 200, 0x09, 0xFE, 0x22]), 198),  # const1u 200 + const1s -2
        (bytes([0x0A]) + struct.pack("<H", 1000) + bytes([0x23]) + uleb(24), 1024),
        (bytes([0x0C]) + struct.pack("<I", 7) + bytes([0x0E]) + struct.pack("<Q", 3) + b"\x1e", 21),
        (bytes([0x10]) + uleb(1 << 40) + bytes([0x11]) + sleb(-1) + b"\x22", (1 << 40) - 1),
        (bytes([0x31, 0x34, 0x24]), 16),  # 1 << 4
        (bytes([0x10]) + uleb(256) + bytes([0x34, 0x25]), 16),  # 256 >> 4
        (bytes([0x11]) + sleb(-256) + bytes([0x34, 0x26]), (1 << 64) - 16),  # shra
        (bytes([0x3C, 0x36, 0x1A]), 4),  # 12 & 6
        (bytes([0x3C, 0x36, 0x21]), 14),  # 12 | 6
        (bytes([0x3C, 0x36, 0x27]), 10),  # 12 ^ 6
        (bytes([0x11]) + sleb(-1) + bytes([0x30, 0x2D]), 1),  # -1 < 0 (signed)
        (bytes([0x11]) + sleb(-1) + bytes([0x30, 0x2B]), 0),  # -1 > 0
        (bytes([0x35, 0x35, 0x29]), 1),  # eq
        (bytes([0x35, 0x35, 0x2E]), 0),  # ne
        (bytes([0x35, 0x36, 0x2C]), 1),  # 5 <= 6
        (bytes([0x35, 0x36, 0x2A]), 0),  # 5 >= 6
        (bytes([0x35, 0x12, 0x22]), 10),  # dup
        (bytes([0x35, 0x36, 0x13]), 5),  # drop
        (bytes([0x35, 0x36, 0x14, 0x1C]), 1),  # over: 5 6 5 -> 6 - 5
        (bytes([0x35, 0x36, 0x37, 0x15, 2]), 5),  # pick 2
        (bytes([0x35, 0x36, 0x16, 0x1C]), 1),  # swap: 6 5 -> 6 - 5
        # rot: the top moves to third place, 5 6 7 -> 7 5 6; minus gives 5 - 6
        (bytes([0x35, 0x36, 0x37, 0x17, 0x1C]), (1 << 64) - 1),
        (bytes([0x11]) + sleb(-7) + bytes([0x19]), 7),  # abs
        (bytes([0x35, 0x1F]), (1 << 64) - 5),  # neg
        (bytes([0x30, 0x20]), (1 << 64) - 1),  # not
        (bytes([0x11]) + sleb(-7) + bytes([0x32, 0x1B]), (1 << 64) - 3),  # -7 / 2 (signed)
        (bytes([0x37, 0x32, 0x1D]), 1),  # 7 mod 2
        (bytes([0x2F]) + struct.pack("<h", 1) + bytes([0x31, 0x32]), 2),  # skip over lit1
        (bytes([0x31, 0x28]) + struct.pack("<h", 1) + bytes([0x33, 0x34]), 4),  # bra taken
        (bytes([0x30, 0x28]) + struct.pack("<h", 1) + bytes([0x33]), 3),  # bra not taken
        (bytes([0x77]) + sleb(-8), 0x1000 - 8),  # breg7 (rsp)
        (bytes([0x92]) + uleb(16) + sleb(4), 0x401004),  # bregx rip
        (bytes([0x56]), 0x2000),  # reg6 (rbp): its value
        (bytes([0x90]) + uleb(7), 0x1000),  # regx rsp
        (bytes([0x77, 0, 0x06]), 0x1010),  # deref
        (bytes([0x77, 0, 0x94, 2]), 0x1010),  # deref_size 2
        (bytes([0x03]) + struct.pack("<Q", 0xDEAD), 0xDEAD),  # addr
        (bytes([0x96, 0x31]), 1),  # nop
    ],
)
def test_expression_operations(expression: bytes, value: int) -> None:
    regs = {"rsp": 0x1000, "rbp": 0x2000, "rip": 0x401000}
    assert evaluate(expression, regs, _memory) == value


def test_register_rules_start_with_the_cfa_pushed() -> None:
    assert evaluate(bytes([0x23, 8]), {}, _no_memory, push=0x100) == 0x108


@pytest.mark.parametrize(
    "expression",
    [
        b"",  # no value
        bytes([0x22]),  # underflow
        bytes([0x15, 3]),  # pick past the bottom
        bytes([0x30, 0x30, 0x1B]),  # division by zero
        bytes([0x30, 0x30, 0x1D]),  # modulo by zero
        bytes([0x31, 0x28]) + struct.pack("<h", -3),  # bra back to itself forever
        bytes([0x2F]) + struct.pack("<h", 100),  # skip outside
        bytes([0x7F, 0]),  # breg15 (r15) unknown in this frame
        bytes([0x77, 0, 0x06]),  # deref of unreadable memory
        bytes([0xE0]),  # not an operation CFI uses
        bytes([0x31, 0x94, 9]),  # deref_size 9
    ],
)
def test_expression_errors(expression: bytes) -> None:
    with pytest.raises(TargetError):
        evaluate(expression, {"rsp": 0x1000}, _no_memory)


# --- robustness ---------------------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=64), st.binary(max_size=16))
def test_random_programs_give_rows_or_target_error(program: bytes, cie: bytes) -> None:
    try:
        table = rows(program, cie)
    except TargetError:
        return
    for row in table:
        assert LOW <= row.low < row.high <= HIGH


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=48), st.integers(0, (1 << 64) - 1))
def test_random_expressions_give_a_value_or_target_error(expression: bytes, push: int) -> None:
    regs = {name: 0x1000 * i for i, name in enumerate(("rax", "rdx", "rsp", "rbp", "rip"))}
    try:
        value = evaluate(expression, regs, _memory, push)
    except TargetError:
        return
    assert 0 <= value < 1 << 64
