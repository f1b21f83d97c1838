"""`complete` of condition/cond and of an expression's members against gdb 13 on one
program (complete_members.c): -force and the breakpoint numbers, a `$` variable, the
members after `.` or `->` (under condition, print with its options, ptype, whatis, and
x and display after a /FMT)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb
from tests.support.build import Builder, marker_line

pytestmark = needs_gdb


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("complete_members")


def test_condition_completes_its_option_numbers_variables_and_members(prog: Path) -> None:
    line = marker_line("complete_members.c", "set")
    out = output_like_gdb(prog, [
        "break main", f"break complete_members.c:{line}", "watch tv.a_field", "set $var = 1",
        "complete condition ", "complete cond 1", "complete cond $v", "complete cond $_", "complete cond $1",
        "complete cond -", "complete cond -force ", "complete cond -force -", "complete cond -f 2",
        "complete cond -- 3", "complete cond 1 values[0].", "complete cond 1 ptr->n",
        "complete cond 1 values[1].un.u", "complete cond 1 values[0].in.", "complete cond 1 tv . b",
        "complete cond 1 nosuch.a",
    ])  # fmt: skip
    assert "condition -force\ncondition 1\ncondition 2\ncondition 3\n" in out
    assert (
        "cond $var\n" in out
        and "cond 1 values[0].a_field\n" in out
        and "cond 1 values[0].un\n" in out
    )
    assert "anon_x" not in out and "cond 1 values[1].un.u2\n" in out


def test_expression_commands_complete_members(prog: Path) -> None:
    out = output_like_gdb(prog, [
        "complete print ptr->", "complete p -pretty -- values[2].n", "complete ptype ptr->i",
        "complete whatis tv.", "complete print/x ptr->n", "complete x/4x ptr->n", "complete display/i ptr->f",
        "complete display ptr->n", "complete p 1.a",
    ])  # fmt: skip
    assert "print ptr->fn\n" in out and "x/4x ptr->next\n" in out and "display/i ptr->fn\n" in out
