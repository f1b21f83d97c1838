"""Calls into an aarch64 program by the AAPCS64 (tests/programs/aarch64_calls.c) through a
qemu-aarch64 stub, compared with gdb-multiarch over a stub of its own: each argument and
result class (x0-x7 and the stack, v0-v7 and homogeneous aggregates, small composites in x
registers, large ones by address and through x8, a string copied with malloc), a call that
stops at a breakpoint (`<function called from gdb>`, the state put back when it returns),
and the registers before and after (x5 left out: qemu's loader leaves a random value there
each run). The wire log shows the return trap (a Z0 breakpoint) at the entry point taken
out again."""

from __future__ import annotations

import re
import struct
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.support.build import Builder, marker_line
from tests.support.qemu import both_batches, cross_builder

pytestmark = pytest.mark.timeout(300)

SOURCE = "aarch64_calls.c"
REGISTERS = "info registers " + " ".join(
    [f"x{i}" for i in range(31) if i != 5] + ["sp", "pc", "cpsr", "fpsr", "fpcr"]
)
VECTORS = ("p $v0", "p $v1", "p $v2")


def _both(program: Path, commands: Sequence[str], cwd: Path) -> tuple[str, str, str]:
    """qemu.both_batches's (gdb-multiarch's, ours), and our wire log."""
    log = cwd / "wire.log"
    gdb, alice = both_batches(program, commands, cwd, our_options=["--log-file", str(log), "--log-level", "DEBUG"])
    return gdb, alice, log.read_text(errors="replace")


@pytest.fixture
def program(builder: Builder) -> Path:
    # not PIE: the entry point, where calls return, at its link address
    return cross_builder(builder).build("aarch64_calls", ("-g", "-O0", "-no-pie"))


def _registers(text: str) -> list[str]:
    """Each listing of REGISTERS and VECTORS in `text` (value history numbers left out)."""
    lines = [re.sub(r"^\$\d+ = ", "", line) for line in text.splitlines()]
    starts = [i for i, line in enumerate(lines) if line.startswith("x0 ")]
    return ["\n".join(lines[i : i + 35 + len(VECTORS)]) for i in starts]


def _trap_balanced(log: str, program: Path) -> None:
    entry = struct.unpack_from("<Q", program.read_bytes(), 24)[0]  # e_entry
    inserted = log.count(f"$Z0,{entry:x},")
    assert inserted >= 1 and log.count(f"$z0,{entry:x},") == inserted, "the return trap stayed in"


def test_aapcs64_argument_and_result_classes_like_gdb_multiarch(program: Path, tmp_path: Path) -> None:
    gdb, alice, log = _both(program, [
        f"break {SOURCE}:{marker_line(SOURCE, 'main')}", "continue", REGISTERS, *VECTORS,
        "print add(2, 3)", "print sum10(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)", "print scale(1.5, 2)", "print halve(3)",
        "print negate(-7)", 'print length("abcd")', "print make_pair(1, 2)", "print make_wide(7, 8)",
        "print make_point(1.25)", "print make_big(5)", "print pair_sum(p)", "print wide_sum(w)",
        "print point_sum(pt)", "print big_sum(b)", "print calls_made", REGISTERS, *VECTORS, "kill",
    ], tmp_path)  # fmt: skip
    assert alice == gdb
    assert "$4 = 5\n$5 = 385\n$6 = 3\n$7 = 1.5\n$8 = 7\n$9 = 4\n$10 = {a = 1, b = 2}\n" in alice
    assert "{x = 1.25, y = 2.5, z = 3.75}\n$13 = {v = {5, 6, 7, 8}}" in alice
    before, after = _registers(alice)
    assert before == after
    _trap_balanced(log, program)


def test_a_call_stopping_at_a_breakpoint_like_gdb_multiarch(program: Path, tmp_path: Path) -> None:
    gdb, alice, log = _both(program, [
        f"break {SOURCE}:{marker_line(SOURCE, 'main')}", "continue", REGISTERS, *VECTORS,
        f"break {SOURCE}:{marker_line(SOURCE, 'in_stops')}", "print stops(1) + 1", "bt", "continue", "bt",
        REGISTERS, *VECTORS, "delete", "print stops(4)", "kill",
    ], tmp_path)  # fmt: skip
    assert alice == gdb
    assert "#1  <function called from gdb>\n#2  main () at " in alice
    before, after = _registers(alice)
    assert before == after
    _trap_balanced(log, program)
