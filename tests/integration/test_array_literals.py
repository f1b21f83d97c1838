"""gdb's braces in expressions (gdb.base/printcmds.exp's test_print_array_constants), side by
side with gdb 13: array literals `{1, 2, 3}` (nested, of chars, indexed, their errors) and
`{type} address`, the value of a type at an address; and `(T []) x`, x's bytes as an array of
as many T as they hold."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.gdb_calls import assert_like_gdb_calls

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def test_braces_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("print_scalars")
    commands = ex(
        f"break print_scalars.c:{marker_line('print_scalars.c', 'main')}", "run",
        "print {'a','b','c'}", "print {0,1,2}", "print {(long)0,(long)1,(long)2}", "print {{0,1,2},{3,4,5}}",
        "print {4,5,6}[2]", "print *&{4,5,6}[1]", "whatis {1,2}", "p sizeof({1,2,3})", "p {1, 2.0}", "p {}",
        "p {1,}", 'p {"ab","cd"}', "p {three, 1}", "output {1,2}", "p {1,2}[5]", "p $_strlen({'a','b'})",
        "p {int}&three", "whatis {char}&three", "p {int[2]}&three", "p {int}&f_var", "p {float}&f_var + 1",
        "p {enum flag_enum}&three", "p -{int}&three", "p {int}0", "p {int}",
        "p/x (short [])0x12345678", "whatis (char[])1", "p (char[3])1", "ptype int[]", "whatis (short [])three",
        "p/x (char[])three", "p/x (short[])f_var",
    )
    got = assert_like_gdb([*commands, str(program)], tmp_path)
    assert '= "abc"' in got.stdout and "{{0, 1, 2}, {3, 4, 5}}" in got.stdout


def test_literals_copied_into_the_program_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """A literal array used by address (printcmds.exp's `p &*"foo"`, `p (char *)"foo"`) is
    copied into the program by its malloc, as gdb's value_coerce_to_target; gdb's error
    before `run`, and with may-call-functions off."""
    program = builder.build("print_scalars")
    by_address = ('p &*"foo"', 'ptype &*"foo"', 'whatis &*"foo"', 'p (char *)"foo"')
    commands = ex(
        *by_address, f"break print_scalars.c:{marker_line('print_scalars.c', 'main')}", "run",
        "set print address off", *by_address, 'p "abc" == "abc"', 'p *"abc"', 'p $_strlen((char *)"hello")',
        'set $s = "xyz"', "p (char *)$s", "print {unsigned char[]}{0xffffffff}", 'p sizeof("abc")',
        "p *&{4,5,6}[1]", "set may-call-functions off", 'p (char *)"foo"',
    )
    # Where gdb cannot call the program's malloc, each literal copied fails, up to sizeof's
    # value: what C gives them (two copies of "abc" at two addresses are not ==).
    copied = ['$1 = "foo"', "type = char *", "type = char *", '$2 = "foo"', "$3 = 0", "$4 = 97 'a'", "$5 = 5",
              '$6 = "xyz"', '$7 = "\\377\\377\\377\\377"', "$8 = 4"]  # fmt: skip
    got = assert_like_gdb_calls([*commands, str(program)], tmp_path, {}, replaced={"$1 = 4": "\n".join(copied)},
                                count_calls=False)  # fmt: skip
    assert '= "\\377\\377\\377\\377"' in got.stdout
