"""Float and double parameters and locals that gcc -O2 keeps in xmm registers (DW_OP_reg17..,
typed DW_OP_regval_type expressions, entry values through the caller's call sites), shown
as gdb 13 shows them: in frame 0 and in outer frames (x86-64 CFI saves no xmm register, so
gdb reads the thread's own), written with `set var`, and with their NAME@entry items."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder, marker_line
from tests.support.gdb_xstate import gdb_could_not_write
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

FLAGS = ("-g", "-O2")
SOURCE = "xmm_values.c"


def _program(builder: Builder) -> Path:
    return builder.build("xmm_values", FLAGS)


def _break(name: str) -> str:
    return f"{SOURCE}:{marker_line(SOURCE, name)}"


# What the program shows of the writes where gdb cannot make them: f and x read back, then
# changed's a@entry = x - y = 9.5 - 1.5 and a = a@entry * 3 + (d * e + f), computed by the
# program from the x written (d * e + f was computed before the stop: -7.3125).
_WRITTEN = ("1.5", "1.5", "9.5", "Breakpoint 2, changed (a=16.6875, a@entry=8, b=1.5) at ")


def test_console_prints_xmm_values_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = _program(builder)
    before = [f"break {_break('mix')}", f"break {_break('changed')}", f"break {_break('spread')}", "run", "bt",
              "info args", "print f", "print d * 2", "print e + f", "print (int)e", "print g", "print d@entry",
              "up", "info args", "print x * y", "down"]  # fmt: skip
    commands = [*before, "set var f = 1.5", "print f", "set var d = 2.5", "print d", "up", "set var x = 9.5",
                "print x", "down", "frame", "continue", "bt", "print a", "print b * b", "continue", "info args",
                "info locals", "print sum * 2", "print d5 / d7"]  # fmt: skip
    gdbs = theirs(["-batch", "-nx", *ex(*commands), str(program)], tmp_path)
    if not gdb_could_not_write(gdbs.stderr):
        got = assert_like_gdb([*ex(*commands), str(program)], tmp_path)
    else:  # gdb 13 cannot write xmm registers here: the oracle up to the writes and from spread on
        got = assert_like_gdb([*ex(*before), str(program)], tmp_path)
        run = ours(["-batch", "-nx", *ex(*commands), str(program)], tmp_path)
        mine = normalized(run.stdout)
        assert mine.startswith(normalized(got.stdout))
        after = iter(re.sub(r"^\$\d+ = ", "", line) for line in mine[len(normalized(got.stdout)) :].splitlines())
        assert all(any(line.startswith(want) for line in after) for want in _WRITTEN)  # each, in order
        spread = "\nBreakpoint 3, spread "
        assert mine[mine.index(spread) :] == normalized(gdbs.stdout)[normalized(gdbs.stdout).index(spread) :]
        got = run
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
