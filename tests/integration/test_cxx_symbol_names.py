"""A C++ code address named as gdb 13 names it: by the function's DWARF symbol, whose
print name carries its parameters (`<main(int, char**)+16>`, `<ns::K::cget() const>`), a
template's without its return type (`<tmpl<long, 2>(long)>`), and for a function without
a linkage name the name gdb computes from the DIEs (`<Local::m(char const*)>`, a lambda's
`<operator()(int) const>`, `std::function`'s manager written with gdb's type printer);
`$pc`'s type in C++ is `void (*)(void)`. A C program keeps `<main+16>` and `void (*)()`
(test_addresses_like_gdb.py and others).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import MoreBuilder
from tests.support.mi_script import both

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

SOURCE = PROGRAMS_DIR / "cxx_symbol_names.cpp"
STOPS = ("get", "cget", "over_int", "over_double", "anon", "infn", "ext", "stat", "tmpl", "twice", "local",
         "lambda")  # fmt: skip
AT_STOP = ("p $pc", "x/2i $pc", "info line *$pc", "frame", "up", "p $pc", "down")


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("cxx_symbol_names")


def _line(marker: str) -> str:
    return f"cxx_symbol_names.cpp:{marker_line(SOURCE, marker)}"


def test_code_addresses_in_main_named_like_gdb(program: Path, tmp_path: Path) -> None:
    got = assert_like_gdb([*ex(f"break {_line('calls')}", "run", "p $pc", "x/2i $pc", "info line *$pc",
                               "whatis $pc", "ptype $pc", "p &main", "p main", "p fp", "p mp", "p twice",
                               "p ns::infn", "p f._M_manager", "output $pc"), str(program)], tmp_path)  # fmt: skip
    assert "(void (*)(void)) 0x" in got.stdout and "<main(int, char**)+" in got.stdout


def test_each_kind_of_function_named_like_gdb(program: Path, tmp_path: Path) -> None:
    """Methods (const, overloads), namespaces, an anonymous one, extern "C", static,
    a template, a local class and a lambda: at a stop in each and in its caller."""
    commands = ["set print frame-arguments none", *(f"break {_line(name)}" for name in STOPS), "run"]
    for _ in STOPS:
        commands += [*AT_STOP, "continue"]
    got = assert_like_gdb([*ex(*commands), str(program)], tmp_path)
    for shown in ("<Local::m(char const*)+", "<operator()(int) const+", "<tmpl<long, 2>(long)+",
                  "<ns::(anonymous namespace)::anon(std::string const&)+", "<ext(char const*, int*)+"):  # fmt: skip
        assert shown in got.stdout


def test_inlined_calls_named_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """-O2: an inlined method's and template's frames by their own symbols (`ns::Acc::add`,
    `sq<int>`, not `add`), the breakpoint's line with its pc (a row that is no statement,
    gdb's frame_show_address), and `$pc` by the function holding the code."""
    program = MoreBuilder(builder.cache_dir).build_cpp("cxx_inlined_names", ("-g", "-O2"))
    got = assert_like_gdb([*ex("set print frame-arguments none", "set print entry-values no",
                               "break ns::Acc::add", "break sq<int>", "run", "bt", "p $pc", "up", "p $pc",
                               "continue", "bt", "frame", "x/i $pc"), str(program)], tmp_path)  # fmt: skip
    assert " in ns::Acc::add (x=..., this=...) at " in got.stdout
    assert "<work(std::vector<int, std::allocator<int> >&)+" in got.stdout


def test_mi_locations_and_frames_named_like_gdb(program: Path, tmp_path: Path) -> None:
    """A breakpoint location's func is the symbol's print name (`Local::m(char const*)`,
    `operator()(int) const`), a frame's is without parameters unless gdb's parser refuses
    the name (a lambda in it, a function type as a template argument:
    `std::function<int (int)>::operator()(int) const`)."""
    commands = [f"-break-insert {_line('local')}", f"-break-insert {_line('lambda')}", "-exec-run",
                "-stack-list-frames", "-break-list", "-exec-continue", "-stack-list-frames 0 1"]  # fmt: skip
    theirs, ours = both(program, commands, tmp_path)

    def answers(records: list[str]) -> list[str]:  # *stopped's arguments hold stack addresses
        return [line for line in records if line.startswith("^")]

    assert answers(ours) == answers(theirs)
    assert any('func="std::function<int (int)>::operator()(int) const"' in line for line in ours)
