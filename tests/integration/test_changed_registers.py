"""-data-list-changed-registers as gdb 13 answers it, natively and over gdbserver: the
registers of the selected frame whose contents differ from those its previous call read
(every register at the first call, none when asked twice at one stop), with the byte, word
and dword views and ymm/zmm as registers of their own, after steps, a finish, writes
through -data-write-register-values and a register var object, in an outer frame, for a
list of numbers (C's atoi: `abc` is 0; a bad number fails after the registers were read)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_remote_session import _both
from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder, marker_line

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

SOURCE = "changed_registers.c"


def _mi(command: str) -> str:
    return f'interpreter-exec mi "{command}"'


CHANGED = _mi("-data-list-changed-registers")
# After the program's first stop: every comparison is between deterministic values.
SCENARIO = [
    CHANGED, CHANGED, _mi("-data-list-changed-registers 0 1 7"), "next", CHANGED, CHANGED,
    _mi("-data-list-changed-registers 0 16 7 16"), "step", CHANGED, "up", CHANGED, CHANGED, "down", CHANGED,
    _mi("-data-write-register-values x 0 0x1234"), CHANGED, _mi("-var-create - * $ecx"),
    _mi("-var-assign var1 0x4321"), CHANGED, _mi("-data-list-changed-registers 2 abc 2"),
    _mi("-data-list-changed-registers 0 9999"), CHANGED, "finish", CHANGED, "next", CHANGED, "kill", CHANGED,
]  # fmt: skip


def test_changed_registers_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("changed_registers")
    start = [f"break {SOURCE}:{marker_line(SOURCE, 'first')}", "run"]
    got = assert_like_gdb([*ex(*start, *SCENARIO), str(program)], tmp_path)
    assert "^done,changed-registers=[]" in got.stdout and '"0","16"' in got.stdout


def test_changed_registers_over_gdbserver_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("changed_registers")
    start = ["target remote {target}", f"break {SOURCE}:{marker_line(SOURCE, 'first')}", "continue"]
    gdb, alice = _both(program, [*start, *SCENARIO], tmp_path)
    assert alice == gdb
    assert "^done,changed-registers=[]" in alice and '"0","16"' in alice


def test_register_values_in_every_format_over_gdbserver_like_gdb(
    builder: Builder, tmp_path: Path
) -> None:
    """Every register (271 on an AVX-512 machine) in one request per format, in frames 0
    and 1: over a stub, whose program starts in the same environment for both (natively
    gdb's has LINES and COLUMNS, and the loader leaves pieces of it in xmm registers)."""
    program = builder.build("registers_expr")
    lists = [
        _mi(f"-data-list-register-values {fmt}") for fmt in ("x", "N", "r", "d", "o", "t", "z")
    ]
    start = [
        "target remote {target}",
        f"break registers_expr.c:{marker_line('registers_expr.c', 'callee')}",
        "continue",
    ]
    gdb, alice = _both(program, [*start, *lists, "up", *lists[:2], "kill"], tmp_path)
    assert alice == gdb
    assert "v8_bfloat16 = {" in alice and "<callee+" in alice
