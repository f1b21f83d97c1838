"""cfiplan's planned step against the general CFI step (unwind._step_cfi) on every row of
the system's libc and ld.so and of a test program: the same CFA and caller registers, and
no plan where the general step has a rule the plan does not know."""

from __future__ import annotations

import os
from typing import Any

import pytest

from aliceserver.debuggers.arch.registry import X86_64_ARCH
from aliceserver.debuggers.symbols.dwarf.cfa_program import RuleKind, UnwindRow
from aliceserver.debuggers.symbols.dwarf.cfi import CfiTable
from aliceserver.debuggers.symbols.dwarf.cfiplan import planned_step, step_plan
from aliceserver.debuggers.symbols.dwarf.unwind import _step_cfi
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.errors import TargetError
from tests.unit.symbols.dwarf_cfi.oracle import PROGRAM
from tests.unit.symbols.dwarf_cfi.readelf_frames import readelf_fdes

LIBRARIES = ["/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2"]
REGISTERS = {name: 0x7FFF_0000_1000 + 0x100 * i for i, name in enumerate(
    ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12", "r13", "r14",
     "r15", "rip", "cs", "ss", "ds", "es", "fs", "gs", "fs_base", "gs_base", "eflags", "orig_rax"))}  # fmt: skip


def memory(address: int, size: int) -> bytes:
    """Distinct words at distinct addresses, as a stack's saved registers are."""
    return b"".join(((address + i) * 0x9E3779B1 & 0xFF).to_bytes(1, "little") for i in range(size))


def unreadable(address: int, size: int) -> bytes:
    raise TargetError(f"Cannot access memory at address {address:#x}")


def rows_of(path: str) -> list[UnwindRow]:
    table = CfiTable.load(ElfImage.load(path))
    assert table is not None
    rows = []
    for fde in readelf_fdes(path):
        for loc, _ in fde.rows:
            row = table.row_at(loc)
            if row is not None:
                rows.append(row)
    return rows


def check_rows(rows: list[UnwindRow]) -> int:
    planned = 0
    for row in rows:
        plan = step_plan(row, X86_64_ARCH)
        kinds = {rule.kind for _, rule in row.rules}
        if plan is None:
            continue
        assert kinds <= {RuleKind.OFFSET} and row.cfa.expression is None, row
        planned += 1
        assert planned_step(plan, REGISTERS, memory) == _step_cfi(
            row, REGISTERS, memory, X86_64_ARCH
        ), row
        assert planned_step(plan, REGISTERS, unreadable) is None  # the general step's rules then
        without_cfa = {k: v for k, v in REGISTERS.items() if k != plan.cfa_register}
        assert planned_step(plan, without_cfa, memory) is None
    return planned


@pytest.mark.parametrize("path", LIBRARIES)
def test_library_rows_step_as_the_general_step(path: str) -> None:
    if not os.path.exists(path):
        pytest.skip(f"{path} is not installed")
    assert check_rows(rows_of(path)) > 1000  # most rows of compiled code have a plan


@pytest.mark.parametrize("flags", [("-O0", "-g"), ("-O2", "-fomit-frame-pointer")])
def test_program_rows_step_as_the_general_step(flags: tuple[str, ...], ctools: Any) -> None:
    binary = ctools.build(PROGRAM.read_text(), *flags, "-pthread", name="unwind")
    assert check_rows(rows_of(str(binary))) > 10
