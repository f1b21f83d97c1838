"""C++ calls into the program that no xmethod covers, compared with gdb 13 on
tests/programs/infcall_cpp.cpp: methods through an object, a pointer and a reference
(`this` by address), static members, overloaded functions and methods picked by argument
types, virtual methods through a base pointer, classes returned by value (a small one with
a copy constructor in memory) and passed by value (through a copy), and gdb's errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.build_more import MoreBuilder
from tests.support.gdb import gdb_env, gdb_outputs_at
from tests.support.gdb_calls import expected_outputs, gdb_could_not_call
from tests.support.mi_console import console_at

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

SOURCE = "infcall_cpp.cpp"


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("infcall_cpp", ("-g", "-O0", "-no-pie"))


def gdb_outputs(program: Path, location: str, commands: list[str]) -> list[str]:
    return gdb_outputs_at(program, location, commands)


def test_methods_statics_overloads_and_virtuals_like_gdb(program: Path) -> None:
    at_main = f"{SOURCE}:{marker_line(SOURCE, 'main')}"
    commands = [
        "print r.area()", "print base->area()", "print base->name()", "print (*base).area()", "print ref.get()",
        "print c.get()", "print base->get_id()", "print Rect::make(3)", "print r.scaled(2)", "print r.scaled(0.5)",
        "print pick(1)", "print pick(2.5)", "print pick(\"z\")", "print pick((char)1)", "print pick(1.5f)",
        "print track(4)", "print untrack(t)", "print c.bumped(3)", "whatis r.area()", "print sizeof(track(1))",
    ]  # fmt: skip
    # What infcall_cpp.cpp's methods return (r is Rect(7, 3, 4), c is {5, 6}, t is 21); the
    # addresses are the linker's and the stack's, so there they are compared as 0x...
    known = ["$1 = 12", "$2 = 12", '$3 = 0x... "rect"', "$4 = 12", "$5 = (int &) @0x...: 5", "$6 = (int &) @0x...: 5",
             "$7 = 7", "$8 = {<Shape> = {_vptr.Shape = 0x... <vtable for Rect+16>, id = 0}, w = 3, h = 3}",
             "$9 = 24", "$10 = 1006", "$11 = 2", "$12 = 102", "$13 = 122", "$14 = 2", "$15 = 101", "$16 = {v = 8}",
             "$17 = 21", "$18 = {n = 8, m = 6}", "type = int", "$19 = 8"]  # fmt: skip
    gdbs = gdb_outputs(program, at_main, commands)
    expected = expected_outputs(gdbs, dict(enumerate(known)), whole=True)
    assert expected[0] == "$1 = 12" and expected[2].endswith('"rect"')  # the oracle ran
    got = console_at(program, at_main, commands, gdb_env())
    if gdb_could_not_call(*gdbs):
        got = [re.sub(r"0x[0-9a-f]+", "0x...", text) for text in got]
    assert got == expected


def test_method_errors_like_gdb(program: Path) -> None:
    at_main = f"{SOURCE}:{marker_line(SOURCE, 'main')}"
    commands = [
        "print r.nosuch()", "print r.scaled()", "print r.scaled(\"x\")", "print r.area(1)", "print pick()",
        "print pick(1, 2)", "print pick(r)", "print Rect::nosuch(1)", "print Rect::area()", "print Rect::make()",
        "print Rect::make(1, 2)",
    ]  # fmt: skip
    expected = gdb_outputs(program, at_main, commands)
    assert expected[0] == "Couldn't find method Rect::nosuch"
    assert console_at(program, at_main, commands, gdb_env()) == expected
