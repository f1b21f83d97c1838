"""`disassemble` of a function gcc -O2 split in two (f and f.cold, tests/programs/
cold_split.c) as gdb 13 prints it: an `Address range LOW to HIGH:` header before each of
its block's ranges (the entry's first), each instruction named from the entry (`<-313>` in
f.cold), the same for /r; `disassemble` inside f.cold names the function f; a label after
an address before the entry is `<f-312>`, never `<f+-312>`. /s and /m list each range's
source from the line table as gdb does at -O2: the lines of every entry at the range's
first address (`{`, then the first statement's), before and after `run`."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def _program(builder: Builder) -> Path:
    program = builder.build("cold_split", ("-g", "-O2"))
    symbols = subprocess.run(["nm", str(program)], capture_output=True, text=True, check=True).stdout
    if " f.cold" not in symbols:
        pytest.skip("this gcc made no f.cold part")
    return program


def test_disassemble_prints_each_range(builder: Builder, tmp_path: Path) -> None:
    program = _program(builder)
    cold = marker_line("cold_split.c", "cold")
    got = assert_like_gdb([*ex("disassemble f", "disassemble /r f", f"info line {cold}", "info line *'f.cold'+1",
                               "disassemble 'f.cold'+1", "x/2i 'f.cold'", "disassemble 'f.cold',+6", "disassemble /s f",
                               "disassemble /m f", "disassemble /s main", "disassemble /m main"), str(program)],
                          tmp_path)  # fmt: skip
    assert got.stdout.count("Address range ") == 10 and "<-" in got.stdout


def test_disassemble_at_a_stop_in_the_function(builder: Builder, tmp_path: Path) -> None:
    program = _program(builder)
    got = assert_like_gdb([*ex("break f", "run", "disassemble", "disassemble /r", "x/3i $pc", "disassemble /s",
                               "disassemble /m", "disassemble /s main"), str(program)], tmp_path)  # fmt: skip
    assert got.stdout.count("Address range ") == 8


def _mi_disassembly(program: Path, cwd: Path, *, gdb: bool, run: bool) -> list[object]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        if run:
            mi.ok("-break-insert f")
            mi.ok("-exec-run")
            mi.stopped()
        cold = marker_line("cold_split.c", "cold")
        return [mi.ok(command).results for command in (
            "-data-disassemble -a f -- 0", f"-data-disassemble -f cold_split.c -l {cold} -- 0",
            f"-data-disassemble -f cold_split.c -l {cold} -- 4", "-data-disassemble -a 'f.cold'+1 -- 1")]  # fmt: skip
    finally:
        mi.close()


@pytest.mark.parametrize("run", [False, True])
def test_mi_disassembles_the_piece_holding_the_address(builder: Builder, tmp_path: Path, run: bool) -> None:
    """-data-disassemble -a / -f -l: the range holding the address (gdb's
    find_pc_partial_function), f.cold's alone for an address in it; link-time addresses
    before run."""
    program = _program(builder)
    ours, gdb = _mi_disassembly(program, tmp_path, gdb=False, run=run), _mi_disassembly(program, tmp_path, gdb=True, run=run)
    assert ours == gdb
    assert "f.cold" in repr(ours)
