"""`$name` for every register gdb names, with gdb's types: `$eflags` printed `[ PF ZF IF ]`
(i386_eflags), `$eax`/`$ax`/`$al`/`$ah` over rax, `$xmm0` the union vec128, `$st0` the
x87 extended float, the x87 and SSE control words, ymm, and assignments through them, in
frame 0 and in an outer frame (its unsaved registers are frame 0's). They were convenience
variables, `void`, since the evaluator knew only the 64-bit general registers."""

from __future__ import annotations

import re

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder, marker_line
from tests.support.gdb_xstate import gdb_could_not_write

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

# Registers that hold no stack address (gdb adds LINES and COLUMNS to the environment, so
# those differ between the two runs) and no AVX-512 register (gdb 13 reads them at Intel's
# offsets, wrong on AMD's).
READS = (
    "print $eflags", "whatis $eflags", "print/x $eflags", "output $eflags", "print $eflags + 1",
    "print $eax", "whatis $eax", "print $ax", "print $al", "print $ah", "whatis $ah",
    "print $r8d", "print $r8w", "print $r8l", "whatis $sil", "whatis $r8w",
    "print $xmm0", "whatis $xmm0", "print/x $xmm0", "print $xmm0.v4_float", "whatis $xmm0.v4_float",
    "print $xmm0.v4_float[1]", "print $xmm15", "print $st0", "print $st7", "whatis $st7", "print $st7 * 2",
    "print $fs_base", "whatis $fs_base", "print $orig_rax", "print $cs", "print $ds", "whatis $ss",
    "print $mxcsr", "whatis $mxcsr", "print $fctrl", "print $fstat", "print $ftag", "print $fop",
    "whatis $fop", "print $fioff", "print $ymm0.v8_float", "whatis $ymm0.v8_float", "print $ymm0",
    "whatis $ymm0", "print $ymm0h", "whatis $ymm0h", "print $pc", "whatis $sp", "whatis $fp",
    "print $ps", "print $eip", "print sizeof($xmm0)",
)
OUTER = ("up", "print $rax", "print $rcx", "print $eflags", "print $rip", "print $xmm0.v2_double",
         "set $eax = 5", "print $rax", "print $eflags = 0x202", "down", "print $eflags")
WRITES = (
    "print $al = 300", "print/x $rax", "set $ah = 1", "print/x $rax", "set var $xmm0.v4_float[0] = 1.5",
    "print $xmm0.v4_float", "print $st0 = 3.25", "print $st0", "print $mxcsr = 0x1f81", "print $mxcsr",
    "set var $ymm0.v8_float[7] = 2", "print $ymm0.v8_float", "print $xmm0.uint128 = 7", "print $xmm0",
    "print $eflags = 0x246", "print $fctrl = 0x27f", "print $fctrl",
)


# What WRITES print where each write reaches the thread: the general registers' through
# GETREGS, the x87/SSE/AVX ones read back (values alone) from the kernel's FXSAVE/XSAVE area after the write.
WRITTEN = (
    "44", "0x2c", "0x12c", "{1.5, 2.80859375, 0, 0}", "3.25", "3.25",
    "[ IE IM DM ZM OM UM PM ]", "[ IE IM DM ZM OM UM PM ]", "{1.5, 2.80859375, 0, 0, 0, 0, 0, 2}",
    "7",
    "{v8_bfloat16 = {6.428e-40, 0, 0, 0, 0, 0, 0, 0}, v8_half = {4.1723e-07, 0, 0, 0, 0, 0, 0, 0}, "
    "v4_float = {9.80908925e-45, 0, 0, 0}, v2_double = {3.4584595208887258e-323, 0}, "
    "v16_int8 = {7, 0 <repeats 15 times>}, v8_int16 = {7, 0, 0, 0, 0, 0, 0, 0}, v4_int32 = {7, 0, 0, 0}, "
    "v2_int64 = {7, 0}, uint128 = 7}",
    "[ PF ZF IF ]", "639", "639",
)  # fmt: skip


def test_registers_by_name_like_gdb(builder: Builder) -> None:
    prog = builder.build("registers_expr")
    line = marker_line("registers_expr.c", "callee")
    commands = [f"break registers_expr.c:{line}", "run", *READS, *OUTER, *WRITES]
    args = [arg for command in commands for arg in ("-ex", command)]
    gdbs = theirs(["-batch", "-nx", *args, str(prog)], prog.parent)
    if not gdb_could_not_write(gdbs.stderr):
        got = assert_like_gdb([*args, str(prog)], prog.parent)
    else:  # gdb 13 refuses every x87/SSE/AVX write here: it stays the oracle up to WRITES
        before = [arg for command in commands[: -len(WRITES)] for arg in ("-ex", command)]
        got = assert_like_gdb([*before, str(prog)], prog.parent)
        mine = ours(["-batch", "-nx", *args, str(prog)], prog.parent)
        assert normalized(mine.stdout).startswith(normalized(got.stdout))
        after = normalized(mine.stdout)[len(normalized(got.stdout)) :].strip().splitlines()
        assert [re.sub(r"^\$\d+ = ", "", line) for line in after] == list(WRITTEN)
        assert mine.returncode == 0 and "Couldn't write" not in mine.stderr
    assert "[ PF" in got.stdout and "v8_bfloat16 = {" in got.stdout and "type = i386_eflags" in got.stdout
