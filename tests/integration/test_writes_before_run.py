"""Writes before `run`: gdb 13 reads the program's file (its sections), opened read only
without `set write on`, so a write there fails with 'Cannot access memory at address A'
(the console's `set var` and `print x = 3`, MI's -data-write-memory-bytes and the
deprecated -data-write-memory), and
-var-assign says its own 'Could not assign expression to variable object' for a value it
could not store or evaluate, passing on the expression's parse errors. Side by side with
gdb, before the run and in it. Reads too: gdb reads the file's allocated sections alone,
not the ELF header or the gaps between sections (the held copy maps them), and names the
first byte it could not read; `x` goes on past a unit it could not read, `disassemble` shows
the address it failed at."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_SOURCE = """\
int global = 5;
static int counter = 7;
int main(void) { return global + counter; }
"""

_BEFORE_RUN = [
    "-data-write-memory-bytes &global 03000000",
    "-data-write-memory-bytes &counter 0300 4",
    "-data-write-memory-bytes &nosuch 00",
    "-data-write-memory-bytes &global 030",
    "-data-write-memory-bytes &global g0",
    '-data-write-memory-bytes &global ""',
    "-data-read-memory-bytes &global 4",
    "-var-create v * global",
    "-var-assign v 9",
    "-var-assign v nosuch",
    "-var-assign v 1+",
    "-var-assign v 2 3",
    "-var-evaluate-expression v",
    "-var-create d * *(int*)8",
    "-var-assign d 3",
    "-data-disassemble -s main -e main+64 -- 0",
    "-data-write-memory &global x 4 3",
    "-data-write-memory &global x 4",
    "-data-evaluate-expression/x global",
    '-interpreter-exec console "set var global = 3"',
    '-interpreter-exec console "print counter = 1"',
    "-data-evaluate-expression global=3",
]
_IN_THE_RUN = [
    "-var-update *",  # (without it gdb's v would still write at the file's address)
    "-data-write-memory-bytes &global 0x",
    "-data-write-memory-bytes &global 020304 6",
    "-data-read-memory-bytes &global 8",
    "-data-write-memory -o 1 &global x 4 0x1234",
    "-data-write-memory &global d 2 0x10002",
    "-data-write-memory -o 2 8 x 4 1",
    "-data-read-memory-bytes &global 8",
    "-var-assign v 1/0",
    "-var-assign v *(int*)8",
    "-var-assign v global.x",
    "-var-assign v 12",
    "-var-create e * *(int*)8",
    "-var-assign e 3",
    "-var-create p * (int*)8",
    "-var-assign p 16",
]


def _answers(program: Path, *, gdb: bool) -> list[str]:
    """Each command's records up to its answer (the run's own left out)."""
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb)
    seen = []
    try:
        mi.prompt()
        for command in _BEFORE_RUN:
            seen += [command, *mi.command(command)[1]]
        mi.ok("-break-insert main")
        mi.ok("-exec-run")
        mi.stopped()
        for command in _IN_THE_RUN:
            seen += [command, *mi.command(command)[1]]
    finally:
        mi.close()
    return [re.sub(r"0x0000555555[0-9a-f]+", "A", line) for line in seen if line != "(gdb) "]


def _program(where: Path) -> Path:
    (where / "writes.c").write_text(_SOURCE)
    subprocess.run(["gcc", "-g", "-O0", "-o", "writes", "writes.c"], cwd=where, check=True)
    return where / "writes"


def test_writes_before_run_like_gdb(tmp_path: Path) -> None:
    program = _program(tmp_path)
    got = _answers(program, gdb=False)
    assert got == _answers(program, gdb=True)
    assert got[1].startswith('101^error,msg="Cannot access memory at address 0x')
    assert got[got.index("-var-assign v 9") + 1].endswith(
        'msg="-var-assign: Could not assign expression to variable object"'
    )


def test_reads_before_run_like_gdb(tmp_path: Path) -> None:
    """main is the last function of .text: reading on from it runs into the gap before .fini."""
    program = _program(tmp_path)
    reads = ["x/2x 8", "x/x", "print *(int*)8", "output *(char*)8", "x/20i main", "x/i",
             "disassemble main", "disassemble main,+64", "x/4x &global", "print counter"]  # fmt: skip
    got = output_like_gdb(
        program, [*reads, "break main", "run", "disassemble 0,4", "x/2x 0", "x/x"]
    )
    assert "Cannot access memory at address 0x8" in got
