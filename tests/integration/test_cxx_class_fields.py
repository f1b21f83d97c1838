"""C++'s `Class::field` in expressions, against gdb 13 in the same run (value_aggregate_elt):
a data member has no value without an object ("Cannot reference non-static field"), but a
type where only the type counts (`sizeof`, `whatis`, `ptype`); a name no member of the
class has is "There is no field named"; in a method of the class it is `this`'s; they were "No symbol "Sink::n" in current context.".
And a qualified name that names nothing is told by the part of its scope gdb stops at."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.batch import batch_in_program_dir, needs_gdb
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder, find_cxx
from tests.support.gdb import gdb_path

pytestmark = [
    needs_gdb,
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
    pytest.mark.timeout(120),
]


def test_a_class_field_by_its_class_as_gdb_evaluates_it(builder: Builder) -> None:
    program = MoreBuilder(builder.cache_dir).build_cpp("cxx_library_names", ("-g", "-O0"))
    commands = ["break main", "run", "print Sink::n", "print sizeof(Sink::n)", "whatis Sink::n", "ptype Sink::n",
                "print Sink::nothing", "print sizeof(Sink::n) + Sink::n", "print sizeof(sink.n) + sink.n",
                "output Sink::n", "print std::cout.good()", "break Sink::flush", "continue", "print Sink::n",
                "print sizeof(Sink::n) + Sink::n"]  # fmt: skip
    expected = batch_in_program_dir([str(gdb_path())], commands, program)
    got = batch_in_program_dir([sys.executable, "-m", "aliceserver"], commands, program)
    assert got == expected
    assert got.count('Cannot reference non-static field "n"') == 3 and "There is no field named nothing" in got
    assert got.count("type = int") == 2 and "$1 = 4" in got  # sizeof(Sink::n)
    assert "Couldn't find method std::ostream::good" in got  # the class by its declared (typedef) name
    assert got.rstrip().endswith("$3 = 3\n$4 = 7")  # in Sink's own method: `this->n`


def _like_gdb(program: Path, commands: list[str]) -> str:
    expected = batch_in_program_dir([str(gdb_path())], commands, program)
    got = batch_in_program_dir([sys.executable, "-m", "aliceserver"], commands, program)
    assert got == expected
    return got


def test_a_qualified_name_naming_nothing_is_told_as_gdb_tells_it(builder: Builder) -> None:
    """The namespace that lacks the name, the first part that is no namespace or class, a
    class within a namespace that has no such type; in C the first part alone (or
    FUNCTION::VARIABLE's); before `run` too."""
    cxx = MoreBuilder(builder.cache_dir).build_cpp("cxx_library_names", ("-g", "-O0"))
    names = ["std::cerr", "ns::nothing", "nosuch::x", "ns::inner::x", "std::chrono::nothing", "main::nothing",
             "ns::flush::q"]  # fmt: skip
    got = _like_gdb(cxx, [*(f"print {n}" for n in names), "break main", "run", *(f"print {n}" for n in names)])
    assert got.count('No symbol "cerr" in namespace "std".') == 2
    assert got.count('No type "inner" within class or namespace "ns".') == 2
    assert got.count('No symbol "nosuch" in current context.') == 2
    got = _like_gdb(builder.build("calls"), ["break main", "run", "print nosuch::x", "print a::b::c", "print add::x"])
    assert 'No symbol "a" in current context.' in got and 'No symbol "x" in specified context.' in got


def test_pointers_to_members_and_method_types_as_gdb_makes_them(builder: Builder) -> None:
    """`&Class::field` is a pointer to data member (`&geo::Plain::y`), `&Class::method` one
    to a member function, a virtual one by its slot (`&virtual geo::Plain::g()`); a
    method's type has its `this` (`{int (const geo::Plain * const, int)}`); an in-class
    constant declared only is its value (`geo::Plain::limit`: 7), and not an lvalue; `p.f`
    uncalled is the method. They
    were plain function pointers without `this`, and "There is no field named limit"."""
    program = MoreBuilder(builder.cache_dir).build_cpp("cpp_member_types", ("-g", "-O0"))
    got = _like_gdb(program, ["break main", "run", "print &geo::Plain::g", "print &geo::Plain::f", "print &geo::Plain::y",
                              "whatis &geo::Plain::y", "ptype &geo::Plain::f", "print &geo::Plain::count",
                              "print geo::Plain::f", "whatis geo::Plain::g", "print geo::Plain::limit + 1",
                              "print &geo::Plain::limit", "print p.f", "ptype p.g", "print geo::Plain::g",
                              "whatis geo::Plain::g"])  # fmt: skip
    assert "= &virtual geo::Plain::g()" in got and "= &geo::Plain::y" in got
    assert "(int (geo::Plain::*)(const geo::Plain * const, int)) 0x" in got
    assert "$5 = {int (const geo::Plain * const, int)} 0x" in got and "$6 = 8" in got
    assert 'Can\'t take address of "geo::Plain::limit" which isn\'t an lvalue.' in got
    assert "$7 = {int (const geo::Plain * const, int)} 0x" in got  # `p.f` uncalled: the method
    assert got.count("type = int (geo::Plain * const)") == 3  # ptype p.g, whatis, and:
    assert 'Cannot reference virtual member function "g"' in got  # its value alone: gdb's error



def test_a_base_class_field_in_a_derived_classs_method_is_thiss(builder: Builder) -> None:
    """In geo::Rect::area, `geo::Shape::id` is this->id through the base, as gdb casts
    `this` to the class named."""
    program = MoreBuilder(builder.cache_dir).build_cpp("cpp_values", ("-g", "-O0"))
    got = _like_gdb(program, ["break geo::Rect::area", "run", "print geo::Shape::id", "print geo::Rect::w",
                              "print sizeof(geo::Shape::id)"])  # fmt: skip
    assert got.rstrip().endswith("$1 = 7\n$2 = 3\n$3 = 4")
