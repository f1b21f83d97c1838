"""The architectures (debuggers/arch): choosing one, AAPCS64's and SysV's return-value
registers type class by type class, and aarch64's frame-record step over synthetic
stacks. The unwinders and readings on real programs are tested against gdb in
tests/integration/test_aarch64_qemu.py and the x86-64 unwind tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from aliceserver.debuggers.arch.aarch64 import _imm7
from aliceserver.debuggers.arch.base import RegisterPiece, ReturnLocation
from aliceserver.debuggers.arch.registry import (
    AARCH64_ARCH,
    X86_64_ARCH,
    by_e_machine,
    by_name,
    checked_against_description,
    described_architecture,
    of_elf,
)
from aliceserver.debuggers.model import SymbolLocation
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    Member,
    StructType,
    Type,
    VoidType,
)
from aliceserver.errors import TargetError, Unsupported
from tests.support.build import Builder

FLOAT = BaseType("float", 4, Encoding.FLOAT)
DOUBLE = BaseType("double", 8, Encoding.FLOAT)
LONG_DOUBLE = BaseType("long double", 16, Encoding.FLOAT)
INT = BaseType("int", 4, Encoding.SIGNED)
LONG = BaseType("long", 8, Encoding.SIGNED)
INT128 = BaseType("__int128", 16, Encoding.SIGNED)
COMPLEX_DOUBLE = BaseType("complex double", 16, Encoding.COMPLEX)


def _struct(*members: Type) -> StructType:
    offset, laid_out = 0, []
    for member in members:
        offset = -(-offset // member.size) * member.size  # aligned to its size
        laid_out.append(Member(None, member, offset))
        offset += member.size
    largest = max(member.size for member in members)
    return StructType("struct", None, -(-offset // largest) * largest, _members=laid_out)


def _pieces(*pairs: tuple[str, int]) -> ReturnLocation:
    return ReturnLocation(tuple(RegisterPiece(name, size) for name, size in pairs))


def test_chosen_by_elf_machine_and_by_gdbs_name(builder: Builder) -> None:
    assert by_e_machine(62) is X86_64_ARCH and by_e_machine("EM_AARCH64") is AARCH64_ARCH
    assert by_name("aarch64") is AARCH64_ARCH and by_name("i386:x86-64") is X86_64_ARCH
    with pytest.raises(Unsupported, match='Undefined item: "riscv:rv64"'):
        by_name("riscv:rv64")
    assert of_elf(str(builder.build("remote_target"))) is X86_64_ARCH  # the host's gcc
    assert checked_against_description(AARCH64_ARCH, "") is AARCH64_ARCH  # says nothing
    with pytest.raises(TargetError, match="Architecture rejected target-supplied description"):
        checked_against_description(AARCH64_ARCH, "i386:x86-64")
    assert described_architecture("aarch64") is AARCH64_ARCH
    assert described_architecture("") is X86_64_ARCH


def test_an_elf_file_that_is_not_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "text"
    path.write_text("not an ELF file at all")
    with pytest.raises(TargetError, match="file format not recognized"):
        of_elf(str(path))


@pytest.mark.parametrize(
    ("value_type", "expected"),
    [
        (VoidType(), ReturnLocation()),
        (INT, _pieces(("x0", 4))),
        (INT128, _pieces(("x0", 8), ("x1", 8))),
        (FLOAT, _pieces(("v0", 4))),
        (LONG_DOUBLE, _pieces(("v0", 16))),
        (COMPLEX_DOUBLE, _pieces(("v0", 8), ("v1", 8))),
        (_struct(FLOAT, FLOAT, FLOAT, FLOAT), _pieces(*((f"v{i}", 4) for i in range(4)))),
        (_struct(DOUBLE, DOUBLE), _pieces(("v0", 8), ("v1", 8))),
        (ArrayType(DOUBLE, 3), _pieces(("v0", 8), ("v1", 8), ("v2", 8))),
        (_struct(FLOAT, FLOAT, FLOAT, FLOAT, FLOAT), ReturnLocation(in_memory=True, address_register="x8")),
        (_struct(DOUBLE, FLOAT), _pieces(("x0", 8), ("x1", 8))),  # mixed: no HFA
        (_struct(LONG, LONG), _pieces(("x0", 8), ("x1", 8))),
        (_struct(LONG, LONG, LONG), ReturnLocation(in_memory=True, address_register="x8")),
    ],
)  # fmt: skip
def test_aapcs64_return_locations(value_type: Type, expected: ReturnLocation) -> None:
    assert AARCH64_ARCH.return_location(value_type) == expected


@pytest.mark.parametrize(
    ("value_type", "expected"),
    [
        (INT, _pieces(("rax", 4))),
        (INT128, _pieces(("rax", 8), ("rdx", 8))),
        (DOUBLE, _pieces(("xmm0", 8))),
        (LONG_DOUBLE, _pieces(("st0", 10))),
        (_struct(DOUBLE, LONG), _pieces(("xmm0", 8), ("rax", 8))),
        (_struct(LONG, FLOAT), _pieces(("rax", 8), ("xmm0", 8))),
        (_struct(LONG, LONG, LONG), ReturnLocation(in_memory=True, address_register="rax")),
    ],
)
def test_sysv_return_locations(value_type: Type, expected: ReturnLocation) -> None:
    assert X86_64_ARCH.return_location(value_type) == expected


# --- aarch64 frame records ------------------------------------------------------------------
START = 0x400700
STP_PRE = 0xA9BD7BFD  # stp x29, x30, [sp, #-48]!
MOV_FP = 0x910003FD  # mov x29, sp
STR = 0xB9001FE0  # str w0, [sp, #28]
CODE = b"".join(word.to_bytes(4, "little") for word in (STP_PRE, MOV_FP, STR, STR))


def _memory(words: dict[int, int]) -> dict[int, bytes]:
    found = {START + i: CODE[i : i + 1] for i in range(len(CODE))}
    for address, value in words.items():
        found.update({address + i: value.to_bytes(8, "little")[i : i + 1] for i in range(8)})
    return found


def _step(pc: int, sp: int, fp: int, memory: dict[int, bytes]) -> tuple[int, int, int] | None:
    def read(address: int, size: int) -> bytes:
        try:
            return b"".join(memory[address + i] for i in range(size))
        except KeyError:
            raise TargetError(f"cannot read {address:#x}") from None

    def lookup(address: int) -> SymbolLocation:
        return SymbolLocation(address, "f", address - START, None)

    registers = {"pc": pc, "sp": sp, "x29": fp, "x30": 0x400900, "x19": 7}
    step = AARCH64_ARCH.frame_record_step(registers, read, lookup, first=True)
    if step is None:
        return None
    assert step.registers["x19"] == 7  # carried out as it is
    return step.registers["pc"], step.registers["sp"], step.registers["x29"]


def test_frame_zero_in_each_part_of_its_prologue() -> None:
    sp, caller_fp, record = 0x7000, 0x7100, 0x7000 - 48
    memory = _memory({record: caller_fp, record + 8: 0x400800})
    # At the entry nothing is saved: the caller is in x30, its x29 the same.
    assert _step(START, sp, caller_fp, memory) == (0x400900, sp, caller_fp)
    # `stp` has run, `mov x29, sp` not: the record is at the new sp.
    assert _step(START + 4, record, caller_fp, memory) == (0x400800, record + 16, caller_fp)
    # Both have run: x29 points at the record.
    assert _step(START + 12, record, record, memory) == (0x400800, record + 16, caller_fp)
    # A record outside the frame's stack is no record.
    assert _step(START + 12, record, record - 16, memory) is None


def test_signed_offsets_of_stp() -> None:
    assert _imm7(STP_PRE) == -48
    assert _imm7(0xA9017BFD) == 16  # stp x29, x30, [sp, #16]
