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


# Each opens a session: the first command is the one that must read the program (the tests
# above began with print, which loads it for its symbols on the way, and hid that these did not).
FIRST = ("x/i main", "x/4xb main", "disassemble main", "print *(int *)&counter", "output counter",
         'interpreter-exec mi "-data-disassemble -s main -e main+4 -- 0"')  # fmt: skip


@pytest.mark.parametrize("command", FIRST)
def test_a_first_command_reads_the_program_before_run(builder: Builder, tmp_path: Path, command: str) -> None:
    program = builder.build("link_time")
    assert_like_gdb([*ex(command), str(program)], tmp_path)


def test_a_first_command_at_a_link_time_number_reads_the_program(builder: Builder, tmp_path: Path) -> None:
    """x, disassemble and MI's memory reads given numbers, before anything loaded the program."""
    program = builder.build("link_time")
    probe = assert_like_gdb([*ex("print/x &counter", "print/x &main"), str(program)], tmp_path)
    counter, main = (line.split(" = ")[1] for line in probe.stdout.splitlines())
    for command in (f"x/i {main}", f"x/2xw {counter}", f"disassemble {main},+4",
                    f'interpreter-exec mi "-data-read-memory-bytes {main} 4"',
                    f'interpreter-exec mi "-data-read-memory {counter} x 4 1 2"'):  # fmt: skip
        assert_like_gdb([*ex(command), str(program)], tmp_path)


def test_breakpoints_at_address_expressions(builder: Builder, tmp_path: Path) -> None:
    """`break *EXPR` is at the expression's address: before run the link-time one, set
    again at the load address once the program runs; after it, in the program's frame."""
    program = builder.build("link_time")
    commands = ex("break *main+4", "tbreak *&twice", "break *(twice)", 'interpreter-exec mi "-break-insert *main+4"',
                  "break *nosuch", "break *", "info breakpoints", "run", "info breakpoints",
                  "break *$pc", "break *main+4", "tbreak *(char *)twice+4", "info breakpoints")  # fmt: skip
    got = assert_like_gdb([*commands, str(program)], tmp_path)
    assert "Breakpoint 1 at 0x1" in got.stdout and "Breakpoint 1, main ()" in got.stdout


# After the program ran, gdb keeps its image relocated where that run loaded it: a
# breakpoint, `print`, `x/i`, `disassemble`, `info line`, MI's -break-list. Ours went back to
# the link-time view with the symbol probe a command starts once the process is gone
# (`info breakpoints` then said 0x...1149 in twice). A new `file` shows link-time again.
GONE = ("print &counter", "print twice", "info line twice", "x/i twice", "disassemble twice",
        "info breakpoints", 'interpreter-exec mi "-break-list"', 'interpreter-exec mi "-data-evaluate-expression twice"')  # fmt: skip


def test_a_pie_stays_at_its_load_addresses_after_it_ran(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("link_time")
    commands = ex("break twice", "run", "continue", *GONE, "run", "info breakpoints", "kill", *GONE,
                  f"file {program}", "print twice", "info breakpoints")  # fmt: skip
    got = assert_like_gdb([*commands, str(program)], tmp_path)
    assert "0x00005555" in got.stdout and "(int *) 0x5555" in got.stdout


def test_after_a_run_a_shared_library_breakpoint_keeps_its_address(builder: Builder, tmp_path: Path) -> None:
    library = builder.build("lib_solib", extra=["-shared", "-fPIC"])
    program = builder.build("solib_main", extra=["-Wl,--no-as-needed", str(library)])
    commands = ex("break solib_step", "break main", "run", "continue", "continue", "continue", "print main",
                  "info breakpoints", 'interpreter-exec mi "-break-list"')  # fmt: skip
    assert_like_gdb([*commands, str(program)], tmp_path)
