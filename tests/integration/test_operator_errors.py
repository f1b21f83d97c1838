"""gdb's words and rules for operators on operands they do not take: unary - + ~ ! on
pointers, arrays and structs; a struct on either side of a binary operator (C has no
class operators); a union compared byte by byte; pointers compared only with pointers and
integers; subscripts of what is no array or pointer (gdb has no `2[arr]`), a float or a
pointer as the index; `->` and `.` on what is no struct, through every pointer; `!`, `?:`
and `&&` on a union or a struct by its bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_START = ["break main", "run"]


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return builder.build("operand_kinds", ("-g", "-O0"))


def test_unary_operators_like_gdb(program: Path) -> None:
    got = output_like_gdb(program, [*_START, *(f"print {op}{operand}" for op in "-+~!" for operand in (
        "pointer", "numbers", "a_pair", "an_either", "main", "real", "$nonexistent", "number"))])  # fmt: skip
    assert "Argument to negate operation not a number." in got


def test_binary_operators_on_structs_and_unions_like_gdb(program: Path) -> None:
    got = output_like_gdb(program, [*_START,
        "print a_pair + 1", "print 1 + a_pair", "print pointer + a_pair", "print a_pair + pointer",
        "print a_pair && 1", "print 0 && a_pair", "print an_either && 1", "print 1 || an_either",
        "print an_either + 1", "print an_either == other_either", "print an_either != an_either",
        "print an_either == 1", "print an_either < an_either", "print a_pair == a_pair",
        "print pointer == 1.5", "print pointer < an_either", "print pointer == 0", "print pointer != numbers",
        "print $nonexistent == 1", "print an_either ? 1 : 2", "print a_pair ? 1 : 2", "print main == main",
        "whatis an_either == an_either", "print 0 && pair_pointer->first",
    ])  # fmt: skip
    assert "Can't do that binary op on that type" in got


def test_subscripts_and_members_like_gdb(program: Path) -> None:
    got = output_like_gdb(program, [*_START,
        "print 1[numbers]", "print 1[pointer]", "print number[1]", "print real[0]", "print an_either[0]",
        "print anonymous[0]", "print a_pair[0]", "print main[0]", "print numbers[a_pair]", "print numbers[1.7]",
        "print pointer[pointer == 0]", "whatis numbers[1.5]",
        "print pointer->x", "print numbers->x", "print number->x", "print number.x", "print pointer.x",
        "print pointer_pointer->x", "print pair_pointer_pointer->second", "print pair_pointer_pointer.first",
        "print pair_pointer.second", "print a_pair->first", "print an_either.nosuch", "print real->x",
    ])  # fmt: skip
    assert "cannot subscript something of type `int'" in got


def test_increments_and_compound_assignments_like_gdb(program: Path) -> None:
    got = output_like_gdb(program, [*_START,
        "print a_pair++", "print --a_pair", "print a_pair += 1", "print a_pair *= a_pair", "print number += a_pair",
        "print an_either++", "print an_either += 1", "print pointer += a_pair", "print main++", "print real++",
        "print number--", "print $nonexistent++",
    ])  # fmt: skip
    assert "Structure has no component named operator+=." in got


def test_integer_literals_past_64_bits_like_gdb(program: Path) -> None:
    """gdb reads a number digit by digit in 64 bits: one that stops growing is too large,
    an octal one that wraps to a bigger value is not."""
    got = output_like_gdb(program, ["print 07777777777777777777777", "print 0x10000000000000000",
        "print 0xffffffffffffffff", "print 18446744073709551615", "print 18446744073709551616",
        "print 99999999999999999999", "print 0777777777777777777777777", "print 00", "print 0x0",
        "print 017777777777777777777777"])  # fmt: skip
    assert "$1 = 18446744073709551615" in got


def test_wide_literals_need_their_types_in_c_like_gdb(program: Path, builder: Builder) -> None:
    """C has wchar_t, char16_t and char32_t only where the program declares them."""
    commands = ["print L'a'", "print u'a'", "print U'a'", "print L\"ab\"", "print sizeof(U'a')", "whatis L'a'"]
    got = output_like_gdb(program, commands)
    assert "No type named wchar_t." in got
    output_like_gdb(builder.build("wide_strings", ("-g", "-O0")), commands)
