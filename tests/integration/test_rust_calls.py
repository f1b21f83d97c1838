"""Calls into a Rust program from expressions, by rustc's own ABI (expr/rust_calls.py).
They were refused ("Function calls are not supported in expressions."). Where gdb calls
right (scalars, references, methods on `&self`, `()`), ours is compared with gdb's on
the same program; where gdb calls a Rust function as C's (a scalar pair packed into one
register: `mk(4, 6)` is `{x: 4, y: 0}`; a struct of 24 bytes passed on the stack, which
the callee reads through a pointer: `volume(cube(2))` faults; `Option<i32>`: an internal
error), each result is compared with what the program itself computed and kept in a
local (`q = mk(4, 6)`), or with its known value. A type's name stands for the type where no
value has it, as gdb's name_to_operation: `ptype Point` (the frame's module's), `sizeof(Point)`;
they were "No symbol 'Point' in current context". Literals as gdb's Rust parser makes them:
`"text"` a `&str` of text copied into the program, `[1, 2, 3]`, `[0; 4]`, `Point { x: 3, ..p }`
built in the program's memory (`&Point { .. }` passed by address), `Meters(2.0)`; they were
"String literals are not supported in Rust expressions." and "unexpected token". Ranges (`1..3`, `..`, `2..=5`) and slices of arrays and slices by them
(`&primes[1..3]`, gdb's `&[*gdb*]`), with gdb's bounds errors; they were "Ranges are not
supported in expressions."."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import MoreBuilder, find_rustc
from tests.support.gdb import gdb_env, gdb_outputs_at, gdb_path
from tests.support.mi_console import console_at

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.skipif(find_rustc() is None, reason="rustc not installed"),
]

LOCATION = f"rust_calls.rs:{marker_line(PROGRAMS_DIR / 'rust_calls.rs', 'calls')}"
LIKE_GDB = ["print twice(21)", "print letters(name)", "print rust_calls::geo::dist2(&p, &q)",
            "print geo::dist2(&p, &q)", "print p.norm1()", "print note(1)", "print twice(p.x) + 1",
            "print brightness(c)", "print p.nosuch()", "print twice()", "print twice(1.5)"]  # fmt: skip
# (a call, the local holding what the program computed by the same call)
AS_THE_PROGRAM_COMPUTED = [("mk(4, 6)", "q"), ("grey(7)", "c"), ("cube(2)", "b"), ("widen(span, 0.5)", "w"),
                           ("half(8)", "h"), ("half(3)", "none"), ("flip(flip(m))", "m")]  # fmt: skip
KNOWN = {"print volume(cube(2))": "$1 = 24", "print area_of(shape)": "$2 = 9", "print area(&shape)": "$3 = 9",
         "print p.swapped()": "$4 = rust_calls::Point {x: 2, y: 1}", "print flip(m)": "$5 = rust_calls::Mixed::Int(2)",
         "print boxed(0)": "$6 = core::option::Option<alloc::boxed::Box<i32, alloc::alloc::Global>>::None",
         "print p.shift(10)": "$7 = 11", "print p": "$8 = rust_calls::Point {x: 11, y: 2}",
         "whatis half(2)": "type = core::option::Option<i32>"}  # fmt: skip


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_rust("rust_calls")


def test_calls_like_gdb(program: Path) -> None:
    expected = gdb_outputs_at(program, LOCATION, LIKE_GDB)
    assert expected[0] == "$1 = 42", expected  # the oracle ran
    got = console_at(program, LOCATION, LIKE_GDB, gdb_env())
    assert list(zip(LIKE_GDB, got, strict=True)) == list(zip(LIKE_GDB, expected, strict=True))


def test_values_passed_and_returned_as_rustc_does(program: Path) -> None:
    commands = [f"print {text}" for pair in AS_THE_PROGRAM_COMPUTED for text in pair]
    got = console_at(program, LOCATION, commands, gdb_env())
    for index, (call, local) in enumerate(AS_THE_PROGRAM_COMPUTED):
        called, kept = got[2 * index], got[2 * index + 1]
        assert called.split(" = ", 1)[1] == kept.split(" = ", 1)[1], (call, called, local, kept)
    assert got[0] == "$1 = rust_calls::Point {x: 4, y: 6}" and got[8].endswith("::Some(4)"), got


def test_known_results(program: Path) -> None:
    commands = list(KNOWN)
    assert dict(zip(commands, console_at(program, LOCATION, commands, gdb_env()), strict=True)) == KNOWN


TYPE_NAMES = ["ptype Point", "whatis Point", "whatis rust_calls::Point", "ptype rust_calls::Span", "ptype Mixed",
              "print sizeof(Point)", "print sizeof(rust_calls::Box3)", "ptype i32", "whatis &Point", "print Point",
              "ptype Nosuch", "print p.x as u8"]  # fmt: skip


def test_type_names_like_gdb(program: Path) -> None:
    expected = gdb_outputs_at(program, LOCATION, TYPE_NAMES)
    assert expected[0].startswith("type = struct rust_calls::Point {"), expected  # the oracle ran
    got = console_at(program, LOCATION, TYPE_NAMES, gdb_env())
    assert list(zip(TYPE_NAMES, got, strict=True)) == list(zip(TYPE_NAMES, expected, strict=True))


LITERALS = ['print "abc"', 'whatis "abc"', "print [1, 2, 3]", "whatis [1u8, 2]", "print [0; 4]",
            "print Point { x: 3, y: 4 }", "print rust_calls::Point { x: 3, ..p }", 'print "a\\nb"',
            'print "abc".length', "print [p, q]", "print [1, 2][1]", "print Point { z: 1 }",
            "print twice([1, 2][0])", 'print letters("h\u00e9llo")', "print Point { x: 3, y: 4 }.y",
            "print rust_calls::geo::dist2(&Point { x: 0, y: 0 }, &Point { x: 3, y: 4 })", "whatis [1, 2]",
            'print b"ab"', 'print b"a\\x01"', 'print sizeof(b"ab")']  # fmt: skip


def test_literals_like_gdb(program: Path) -> None:
    expected = gdb_outputs_at(program, LOCATION, LITERALS)
    assert expected[0] == '$1 = "abc"', expected  # the oracle ran
    got = console_at(program, LOCATION, LITERALS, gdb_env())
    assert list(zip(LITERALS, got, strict=True)) == list(zip(LITERALS, expected, strict=True))
    assert console_at(program, LOCATION, ["print Point { x: 3 }"], gdb_env()) == ["$1 = rust_calls::Point {x: 3, y: 0}"]


def test_literals_before_run_like_gdb(program: Path) -> None:
    """A `&str`'s text and a struct are made in the program: gdb's error without one; an
    array is made aside (gdb's too)."""
    from tests.support.batch import ex, normalized, ours, theirs

    commands = ['print "abc"', "print rust_calls::Point { x: 1, y: 2 }", "print [1, 2]", "print [7; 2][1]"]
    args = ["-batch", "-nx", *ex(*commands), str(program)]
    expected, got = theirs(args, program.parent), ours(args, program.parent)

    def errors(text: str) -> list[str]:  # gdb -nx warns that it has no Rust printers to load
        return [line for line in normalized(text).splitlines()
                if not line.startswith(("warning: Missing auto-load script", "of file ", "Use `info auto-load"))]  # fmt: skip

    assert (normalized(got.stdout), errors(got.stderr)) == (normalized(expected.stdout), errors(expected.stderr))
    assert errors(got.stderr) == ["evaluation of this expression requires the target program to be active"] * 2


RANGES = ["print primes[1..3]", "print/r &primes[1..3]", "print/r &primes[..2]", "print/r &primes[2..]",
          "print/r &primes[..]", "print/r &primes[1..=2]", "print &primes[3..1]", "print &primes[0..9]",
          "print/r &tail[1..]", "print 1..3",
          "print ..", "print 2..", "print ..5", "print 1..=3", "print 1u8..3", "whatis 1..3",
          "print (&primes[1..3])[1]", "print &primes[-1..2]", "whatis -1", "whatis -1i8", "print -5u8"]  # fmt: skip


def test_ranges_and_slices_like_gdb(program: Path) -> None:
    """(print/r: gdb -nx loads no Rust printers; ours shows `&[*gdb*](size=2) = {3, 5}` with them, as rust-gdb)"""
    expected = gdb_outputs_at(program, LOCATION, RANGES)
    assert expected[0] == "Can't take slice of array without '&'", expected  # the oracle ran
    got = console_at(program, LOCATION, RANGES, gdb_env())
    assert list(zip(RANGES, got, strict=True)) == list(zip(RANGES, expected, strict=True))
