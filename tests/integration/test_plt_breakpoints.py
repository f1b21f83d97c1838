"""Breakpoints on a function of the program's own shared library set before `run`, compared
with gdb 13: before the library is loaded the name is its PLT stub's (gdb's trampoline
symbol `solib_step@plt`), so the breakpoint binds there; once the library loads it moves to
the library's function (gdb's breakpoint_re_set), and the program stops there only."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder
from tests.support.gdb_calls import assert_like_gdb_calls
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    library = builder.build("lib_solib", extra=["-shared", "-fPIC"])
    return builder.build("solib_main", extra=["-Wl,--no-as-needed", str(library)])


def test_break_on_a_library_function_before_run_like_gdb(program: Path) -> None:
    commands = ["break solib_step", "info breakpoints", "run", "info breakpoints", "bt", "continue",
                "info breakpoints"]  # fmt: skip
    got = assert_like_gdb([*ex(*commands), str(program)], program.parent)
    assert "<solib_step@plt>" in got.stdout and "Breakpoint 1, solib_step (x=1) at " in got.stdout
    assert "breakpoint already hit 2 times" in got.stdout  # never in the stub


def test_stopped_in_a_stub_like_gdb(program: Path) -> None:
    """A stub by its quoted name; the stop, backtrace and code there name it as gdb does
    (its pc shown, no `from` for the program's own code), its GOT slot `NAME@got.plt`."""
    commands = ["break main", "run", "break 'solib_step@plt'", "continue", "bt", "info symbol $pc", "x/3i $pc",
                "stepi", "bt 1", "continue"]  # fmt: skip
    got = assert_like_gdb([*ex(*commands), str(program)], program.parent)
    assert " in solib_step@plt ()\n" in got.stdout and "<solib_step@got.plt>" in got.stdout


def test_print_a_stub_like_gdb(program: Path) -> None:
    """A function known only by its ELF symbol prints as gdb's minimal symbol: before the
    library loads, its name is the stub's (gdb's trampoline); a call asks for a process,
    then for a cast of its return type."""
    commands = ["p solib_step", "p &solib_step", "p *solib_step", "whatis solib_step", "p 'solib_step@plt'",
                "p solib_step(1)", "p printf", "p 'ab'", "break main", "run", "p solib_step", "p 'solib_step@plt'",
                "p 'solib_step@plt'(2)", "p (int)'solib_step@plt'(2)", "ptype 'solib_step@plt'",
                "whatis &'solib_step@plt'", "ptype &'solib_step@plt'", "p 'solib_step@plt' + 1"]  # fmt: skip
    # (int)'solib_step@plt'(2), the first call: the library's counter 2, doubled.
    got = assert_like_gdb_calls([*ex(*commands), str(program)], program.parent, {8: "4"})
    assert "$1 = {<text variable, no debug info>} 0x" in got.stdout and "type = <unknown return type> ()" in got.stdout


def _mi_inserted(program: Path, *, gdb: bool) -> list[str]:
    """The answers to -break-insert on the stub before run and on the library's function
    without line info after it (gdb's bkpt says `at="<NAME+OFFSET>"` there, no func or file)."""
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb)
    try:
        mi.prompt()
        answers = _results(mi.command("-break-insert solib_step")[1])
        mi.ok("-break-insert main")
        mi.ok("-exec-run")
        mi.stopped()
        answers += _results(mi.command("-break-insert solib_step")[1])
        return answers
    finally:
        mi.close()


def _results(lines: list[str]) -> list[str]:
    return [line for line in lines if line.lstrip("0123456789").startswith("^")]


def test_mi_places_without_line_info_like_gdb(builder: Builder) -> None:
    library = builder.build("lib_solib", flags=("-O0",), extra=["-shared", "-fPIC"])  # no debug info
    program = builder.build("solib_main", extra=["-Wl,--no-as-needed", str(library)])
    got = _mi_inserted(program, gdb=False)
    assert got == _mi_inserted(program, gdb=True)
    assert 'at="<solib_step@plt>"' in got[0] and re.search(r'at="<solib_step\+\d+>"', got[1])
    got = assert_like_gdb([*ex("break main", "run", "break solib_step", "info breakpoints"), str(program)],
                          program.parent)  # fmt: skip
    assert re.search(r"<solib_step\+\d+>\n", got.stdout)  # past its frame setup
