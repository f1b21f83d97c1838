"""Disassembler against objdump -d -M intel, branch targets, (bad) bytes and robustness."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aliceserver.debuggers.model import SymbolLocation
from aliceserver.debuggers.symbols.disasm import Disassembler, instruction_boundaries
from aliceserver.debuggers.symbols.elf import PT_LOAD, ElfImage
from aliceserver.debuggers.symbols.process import ProcessSymbols
from aliceserver.errors import ProtocolError

FUNCTIONS = ("add", "helper", "compute", "main")


def _code_of(path: Path, name: str) -> tuple[int, bytes]:
    """(address, bytes) of function `name`, read from the file through its PT_LOAD."""
    image = ElfImage.load(str(path))
    symbol = image.find_symbol(name)
    assert symbol is not None and symbol.size > 0
    for seg in image.segments:
        if seg.type == PT_LOAD and seg.vaddr <= symbol.address < seg.vaddr + seg.filesz:
            with path.open("rb") as stream:
                stream.seek(seg.offset + symbol.address - seg.vaddr)
                return symbol.address, stream.read(symbol.size)
    raise AssertionError(f"{name} is in no PT_LOAD")


def _objdump_lines(ctools: Any, path: Path, start: int, end: int) -> list[tuple[int, str, str]]:
    text = ctools.objdump(
        path, "-d", "-M", "intel", f"--start-address={start:#x}", f"--stop-address={end:#x}"
    )
    lines = []
    for line in text.splitlines():
        parts = line.split("\t")
        match = re.match(r"^\s*([0-9a-f]+):$", parts[0])
        if match and len(parts) >= 3 and parts[2].strip():
            assembly = parts[2].split("#")[0].strip()  # drop `# 404020 <sym>` comments
            mnemonic, _, operands = assembly.partition(" ")
            lines.append((int(match.group(1), 16), mnemonic, operands.strip()))
    return lines


def _squash(operands: str) -> str:
    return re.sub(r"\s+", "", operands.lower())


@pytest.mark.parametrize("name", FUNCTIONS)
def test_matches_objdump(name: str, program_nopie: Path, ctools: Any) -> None:
    address, code = _code_of(program_nopie, name)
    ours = Disassembler().disassemble(code, address)
    theirs = _objdump_lines(ctools, program_nopie, address, address + len(code))
    assert [(i.address, i.mnemonic) for i in ours] == [(a, m) for a, m, _ in theirs]
    assert sum(i.size for i in ours) == len(code)
    assert b"".join(i.raw for i in ours) == code
    for insn, (_a, _m, operands) in zip(ours, theirs, strict=True):
        if insn.mnemonic not in ("call", "jmp") and not insn.mnemonic.startswith("j"):
            assert _squash(insn.operands) == _squash(operands), insn


def test_boundaries_match_objdump(program_nopie: Path, ctools: Any) -> None:
    address, code = _code_of(program_nopie, "compute")
    theirs = _objdump_lines(ctools, program_nopie, address, address + len(code))
    assert Disassembler().instruction_boundaries(code, address) == [a for a, _, _ in theirs]
    assert instruction_boundaries(code, address) == [a for a, _, _ in theirs]


def test_symbols_and_branch_targets(program_nopie: Path) -> None:
    symbols = ProcessSymbols()
    symbols.set_main(str(program_nopie), 0)
    address, code = _code_of(program_nopie, "compute")
    instructions = Disassembler().disassemble(code, address, resolve=symbols.lookup_address)
    assert instructions[0].symbol == SymbolLocation(address, "compute", 0, str(program_nopie))
    assert all(i.symbol is not None and i.symbol.name == "compute" for i in instructions)
    calls = {i.target.name for i in instructions if i.mnemonic == "call" and i.target}
    assert calls == {"add", "helper"}
    jumps = [i for i in instructions if i.mnemonic.startswith("j")]
    assert jumps and all(i.target is not None and i.target.name == "compute" for i in jumps)
    assert all(i.target is None for i in instructions if not i.mnemonic.startswith(("j", "call")))

    _main, main_code = _code_of(program_nopie, "main")
    main_insns = Disassembler().disassemble(main_code, _main, resolve=symbols.lookup_address)
    targets = {i.target.name for i in main_insns if i.target is not None}
    assert {"compute", "printf@plt"} <= targets


def test_count_and_att_syntax(program_nopie: Path) -> None:
    address, code = _code_of(program_nopie, "compute")
    disassembler = Disassembler()
    first = disassembler.disassemble(code, address, 3)
    assert len(first) == 3 and first[0].address == address
    assert disassembler.disassemble(code, address, 0) == []
    att = disassembler.disassemble(code, address, syntax="att")
    intel = disassembler.disassemble(code, address)
    assert [i.address for i in att] == [i.address for i in intel]
    assert any("%rbp" in i.operands for i in att)
    assert not any("%" in i.operands for i in intel)


def test_unknown_syntax() -> None:
    with pytest.raises(ProtocolError, match="syntax"):
        Disassembler().disassemble(b"\x90", 0x1000, syntax="masm")


def test_bad_bytes() -> None:
    # 0x06 (push es) does not exist in 64-bit mode; decoding resumes after it.
    instructions = Disassembler().disassemble(b"\x06\x90\x06\xc3", 0x2000)
    assert [(i.address, i.mnemonic, i.size) for i in instructions] == [
        (0x2000, "(bad)", 1),
        (0x2001, "nop", 1),
        (0x2002, "(bad)", 1),
        (0x2003, "ret", 1),
    ]
    assert instructions[0].raw == b"\x06"
    seen: list[int] = []

    def resolve(address: int) -> SymbolLocation:
        seen.append(address)
        return SymbolLocation(address, "blob", address - 0x2000, None)

    resolved = Disassembler().disassemble(b"\x06\x90", 0x2000, resolve=resolve)
    assert resolved[0].symbol == SymbolLocation(0x2000, "blob", 0, None)
    assert seen == [0x2000, 0x2001]
    assert Disassembler().instruction_boundaries(b"\x06\x90\x48", 0x2000) == [
        0x2000,
        0x2001,
        0x2002,
    ]


def test_indirect_branches_have_no_target() -> None:
    # call rax; jmp qword ptr [rip + 0x10]; call 0x3010 (direct)
    code = bytes.fromhex("ffd0" + "ff2510000000" + "e800000000")
    targets = [
        i.target
        for i in Disassembler().disassemble(
            code, 0x3000, resolve=lambda a: SymbolLocation(a, "x", 0, None)
        )
    ]
    assert targets[:2] == [None, None]
    assert targets[2] == SymbolLocation(0x300D, "x", 0, None)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200), st.integers(0, 2**48))
def test_random_bytes_cover_the_input(code: bytes, address: int) -> None:
    disassembler = Disassembler()
    instructions = disassembler.disassemble(code, address)
    assert sum(i.size for i in instructions) == len(code)
    assert b"".join(i.raw for i in instructions) == code
    assert [i.address for i in instructions] == disassembler.instruction_boundaries(code, address)
