"""Float and double parameters and locals that gcc -O2 keeps in xmm registers (DW_OP_reg17..,
typed DW_OP_regval_type expressions, entry values through the caller's call sites), shown
as gdb 13 shows them: in frame 0 and in outer frames (x86-64 CFI saves no xmm register, so
gdb reads the thread's own), written with `set var`, and with their NAME@entry items."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

FLAGS = ("-g", "-O2")
SOURCE = "xmm_values.c"


def _program(builder: Builder) -> Path:
    return builder.build("xmm_values", FLAGS)


def _break(name: str) -> str:
    return f"{SOURCE}:{marker_line(SOURCE, name)}"


def test_console_prints_xmm_values_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = _program(builder)
    got = assert_like_gdb([
        "-ex", f"break {_break('mix')}", "-ex", f"break {_break('changed')}", "-ex", f"break {_break('spread')}",
        "-ex", "run", "-ex", "bt", "-ex", "info args", "-ex", "print f", "-ex", "print d * 2",
        "-ex", "print e + f", "-ex", "print (int)e", "-ex", "print g", "-ex", "print d@entry",
        "-ex", "up", "-ex", "info args", "-ex", "print x * y",
        "-ex", "down", "-ex", "set var f = 1.5", "-ex", "print f", "-ex", "set var d = 2.5", "-ex", "print d",
        "-ex", "up", "-ex", "set var x = 9.5", "-ex", "print x", "-ex", "down", "-ex", "frame",
        "-ex", "continue", "-ex", "bt", "-ex", "print a", "-ex", "print b * b",
        "-ex", "continue", "-ex", "info args", "-ex", "info locals", "-ex", "print sum * 2", "-ex", "print d5 / d7",
        str(program),
    ], tmp_path)  # fmt: skip
    assert "f=f@entry=-2.25" in got.stdout and "= 9.5" in got.stdout


def _mi_lists(program: Path, cwd: Path, *, gdb: bool) -> list[object]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        for name in ("mix", "changed", "spread"):
            mi.ok(f"-break-insert {_break(name)}")
        mi.ok("-exec-run")
        seen: list[object] = []
        for expression in ("d * e", "a / 2", "d1 * d3 + f0"):  # one per stop
            seen.append(mi.stopped().results["frame"])
            for command in ("-stack-list-variables --all-values", "-stack-list-arguments 1",
                            "-stack-list-arguments --simple-values 1 1", f'-data-evaluate-expression "{expression}"',
                            "-stack-list-variables --thread 1 --frame 1 --all-values"):  # fmt: skip
                seen.append(mi.ok(command).results)
            mi.ok("-exec-continue")
        return seen
    finally:
        mi.close()


def test_mi_lists_xmm_values_and_entry_values_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = _program(builder)
    ours, gdb = _mi_lists(program, tmp_path, gdb=False), _mi_lists(program, tmp_path, gdb=True)
    assert ours == gdb
    assert "f@entry" in repr(ours) and "d7@entry" in repr(ours)
