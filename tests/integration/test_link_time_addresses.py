"""A PIE before `run` is shown at its link-time addresses, as gdb shows a program it has
not loaded: `p &counter` is `(int *) 0x4010 <counter>`, memory at those addresses reads
the program's (`x`, `p *(int *)ADDR`, a pointer's target), `info symbol`, `x/i` and
`disassemble` name them, and a breakpoint's trap never shows in the code. Ours holds a
loaded copy for the symbols and showed its relocated 0x5555... addresses. After `run`
both show the load addresses."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder, marker_line

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

BEFORE = ("print &counter", "print counter_pointer", "print *counter_pointer", "print/x &counter",
          "print (long)&counter", "output twice", "print &twice", "print greeting", "x/2xw &counter",
          "x/s greeting", "info symbol counter_pointer", "info symbol twice", "info address twice",
          "x/2i twice", "disassemble twice", "print $pc")  # fmt: skip
AFTER = ("print &counter", "print counter_pointer", "x/2xw &counter", "info symbol twice", "x/i $pc")


def test_a_pie_shows_link_time_addresses_until_it_runs(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("link_time")
    line = marker_line("link_time.c", "main")
    commands = ex(*BEFORE, f"break link_time.c:{line}", "disassemble main", "print *(int *)&counter",
                  "run", *AFTER)  # fmt: skip
    got = assert_like_gdb([*commands, str(program)], tmp_path)
    assert "(int *) 0x4" in got.stdout and "int3" not in got.stdout


def test_addresses_typed_before_run_read_the_program(builder: Builder, tmp_path: Path) -> None:
    """A link-time address given by number reads the program's bytes, as in gdb."""
    program = builder.build("link_time")
    probe = assert_like_gdb([*ex("print/x &counter", "print/x &twice"), str(program)], tmp_path)
    counter, twice = (line.split(" = ")[1] for line in probe.stdout.splitlines())
    assert_like_gdb([*ex(f"print *(int *){counter}", f"x/2xw {counter}", f"info symbol {twice}",
                         f"x/i {twice}"), str(program)], tmp_path)  # fmt: skip
