"""gdb's `{a, b, c}` where a struct or an array is wanted (assigned, or cast to): the
fields or elements in order, each converted to its type, the rest zero; and a value too
big for a bitfield stored truncated after gdb's "Value does not fit in N bits." warning,
which gdb's error stream shows before the value printed (gdb.base/setvar.exp). Casts and
assignments of structs and arrays as gdb's value_cast: an array cast stands for its
address (a literal's copied into the program), another type is read in place where the
value is in memory."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.batch import batch_in_program_dir, needs_gdb, output_like_gdb
from tests.support.build import Builder
from tests.support.gdb import gdb_path

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_START = ["break main", "run"]


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return builder.build("brace_assign", ("-g", "-O0"))


def test_brace_lists_fill_structs_and_arrays_like_gdb(program: Path) -> None:
    got = output_like_gdb(program, [*_START,
        "set variable o = {1, {'h', 1, 2, 3, 4.0, 5.0}, 37, 5, {1, 2}}", "print o",
        "print o = {1, {2}, 3, 4, {5, 6, 7}}", "print o.t = {1.5, 2}", "print o = {7}",
        "print o = {1, {2}, 3, 4, {5, 6, 7}, 8}", "print o = {1, 2}",
        "print a3 = {1, 2}", "print a3 = {1, 2, 3, 4}", "print o.arr = {1, 2.5, 3}",
        "print (struct inner){1, 2, 3}", "print (int[2]){9}", "print sizeof ((struct inner){1})",
        "whatis o = {1}", "print $v = {1, 2}", "print $v", "print un = {1}", "print o.arr += {1}",
    ])  # fmt: skip
    assert "t = {c = 104 'h', s = 1, i = 2, l = 3, f = 4, d = 5}, c = 37 '%'" in got


def test_casts_and_assignments_of_arrays_and_structs_like_gdb(program: Path) -> None:
    got = output_like_gdb(program, [*_START,
        "print (long){1, 2} != 0", "print (long)\"ab\" != 0", "print (long)a3 == (long)&a3",
        "print (struct inner)a3", "print (int[3])a3", "print (char[12])a3", "print (int[3])o",
        "print (int[2])o.l", "print (char[8])o.l", "print (struct inner)o", "print (struct inner)5",
        "print o.t = o", "print a3 = o.arr", "print o.arr = a3", "print o.t = 5", "print o.t = a3",
        "print a3 = 5", "print a3 = o", "set variable o.l = a3", "print o.l == (long)&a3", "print $x = o", "print o.t = $x",
        "print o = {1, {2}, 3, 4, a3}", "print o.arr = {1, {2}, 3}", "print o.arr[1] != 2",
    ])  # fmt: skip
    assert "Invalid cast." in got


def test_strings_where_arrays_and_pointers_are_wanted_like_gdb(program: Path) -> None:
    """A string assigned or cast to an array of integers fills it (gdb's
    c_string_operation); to a pointer or an integer, it is copied into the program."""
    got = output_like_gdb(program, [*_START,
        "print a3 = \"a\"", "print a3 = \"ab\"", "print a3 = \"abc\"", "print (char[2])\"a\"",
        "print (char[4])\"ab\"", "print (char[2])\"ab\"", "set variable o.l = \"hi\"", "print *(char *)o.l@3",
        "print (int[1])\"\"", "print (short[2])\"abc\"", "print (short[3])\"abc\"",
    ])  # fmt: skip
    assert "= {25185, 0, 0}" in got


def test_a_value_too_big_for_a_bitfield_like_gdb(program: Path) -> None:
    got = output_like_gdb(program, [*_START, "print sef.field = 7", "print uef.field = 6",
                                    "print sef.field = -1", "set variable o.u = 9", "print o.u",
                                    "print o.u = -5", "print o = {1, {2}, 3, 12}"])  # fmt: skip
    assert "warning: Value does not fit in 2 bits." in got


def test_the_warning_comes_before_the_value(program: Path) -> None:
    commands = [*_START, "print uef.field = 6", "print o.u = 8"]
    expected = batch_in_program_dir([gdb_path() or "gdb"], commands, program)
    assert batch_in_program_dir([sys.executable, "-m", "aliceserver"], commands, program) == expected
    assert "warning: Value does not fit in 2 bits.\n$1 = u2\n" in expected
