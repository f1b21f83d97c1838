"""C++'s `Class::field` in expressions, against gdb 13 in the same run (value_aggregate_elt):
a data member has no value without an object ("Cannot reference non-static field"), but a
type where only the type counts (`sizeof`, `whatis`, `ptype`); a name no member of the
class has is "There is no field named"; they were "No symbol "Sink::n" in current context."."""

from __future__ import annotations

import sys

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
                "output Sink::n"]  # fmt: skip
    expected = batch_in_program_dir([str(gdb_path())], commands, program)
    got = batch_in_program_dir([sys.executable, "-m", "aliceserver"], commands, program)
    assert got == expected
    assert got.count('Cannot reference non-static field "n"') == 3 and "There is no field named nothing" in got
    assert got.count("type = int") == 2 and "$1 = 4" in got  # sizeof(Sink::n)
