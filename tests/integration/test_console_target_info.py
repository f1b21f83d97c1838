"""gdb's target information commands against gdb 13 on the same program: `info auxv`
(every entry's name, description and value, strings with their addresses, print address
off) and `info float` (the x87 registers R7..R0 with their tags and values, the status,
control and tag words), before and after `run`."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb, normalized, ours, theirs
from tests.support.gdb_xstate import gdb_could_not_write

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

SOURCE = r"""
int main(void) {
  volatile long double a = 1.25L, b = -3.0L;
  volatile long double c = a * b;
  __asm__ volatile ("fldpi; fld1; fldz; fld %st(0); fldlg2");
  return (int) c; /* here */
}
"""


@pytest.fixture
def program(tmp_path: Path) -> Path:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc not installed")
    (tmp_path / "x87.c").write_text(SOURCE)
    subprocess.run([gcc, "-g", "-O0", "-o", str(tmp_path / "x87"), str(tmp_path / "x87.c")], check=True)
    return tmp_path / "x87"


def _stack_addresses(text: str) -> str:
    """The environment gdb gives the program (LINES, COLUMNS) moves what the kernel puts
    on its stack: AT_RANDOM's bytes and AT_PLATFORM's string."""
    return re.sub(r"0x7fff[0-9a-f]{8}", "0x7fff...", normalized(text))


def test_info_auxv_like_gdb(program: Path, tmp_path: Path) -> None:
    args = ["-batch", "-nx", *ex("info auxv", "break main", "run", "info auxv", "set print address off",
                                 "info auxv"), str(program)]  # fmt: skip
    expected, got = theirs(args, tmp_path), ours(args, tmp_path)
    assert _stack_addresses(got.stdout) == _stack_addresses(expected.stdout)
    assert normalized(got.stderr) == normalized(expected.stderr)
    assert "AT_SYSINFO_EHDR      System-supplied DSO's ELF header" in got.stdout
    assert f'AT_EXECFN            File name of executable        "{program}"' in got.stdout


# What `info float` shows after the writes, in order, as the thread's FXSAVE area then
# holds them: st2 -inf and st3 1e300 (R5 and R6 below TOP 3, their tags special and valid),
# then TOP 7 from the status word written and the control word's precision and rounding.
_WRITTEN = ("$2 = -inf", "$3 = 1.0000000000000000525e+300",
            "  R6: Valid   0x43e3bf21e44003ace000 +1.000000000000000053e+300 ",
            "  R5: Special 0xffff8000000000000000 -Inf", "Tag Word:            0x093f", "$4 = 16383", "$5 = 3648",
            "=>R7: Valid   0x3ffd9a209a84fbcff799 +0.3010299956639811952     ",
            "Status Word:         0x3fff   IE DE ZE OE UE PE   ES   SF   C0 C1 C2   ", "                       TOP: 7",
            "Control Word:        0x0e40                    ", "                       PC: Double Precision (53-bits)",
            "                       RC: Round toward zero")  # fmt: skip


def test_info_float_like_gdb(program: Path, tmp_path: Path) -> None:
    before = ("info float", "break 6", "run", "info float", "p $st1 = 1e-4940")
    commands = (*before, "p $st2 = -1.0/0", "p $st3 = 1e300", "info float", "p $fstat = 0x3fff",
                "p $fctrl = 0x0e40", "info float", "up", "info float")  # fmt: skip
    if not gdb_could_not_write(theirs(["-batch", "-nx", *ex(*commands), str(program)], tmp_path).stderr):
        got = assert_like_gdb([*ex(*commands), str(program)], tmp_path)
    else:  # gdb 13 refuses the x87 writes here: the oracle up to them, then the values written
        got = assert_like_gdb([*ex(*before), str(program)], tmp_path)
        mine = ours(["-batch", "-nx", *ex(*commands), str(program)], tmp_path)
        assert normalized(mine.stdout).startswith(normalized(got.stdout))
        after = iter(normalized(mine.stdout)[len(normalized(got.stdout)) :].splitlines())
        assert all(line in after for line in _WRITTEN)  # each, in this order
        assert mine.returncode == 0 and "Couldn't write" not in mine.stderr
    assert "=>R3: Valid   0x3ffd9a209a84fbcff799 +0.3010299956639811952" in got.stdout
