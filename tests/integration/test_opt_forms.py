"""gdb's answers about -O2 values in no memory (tests/programs/opt_forms.c), side by side
with gdb in batch mode: whatis, ptype and sizeof evaluate for the type alone (a pointer
optimized out or null is not read, an assignment writes nothing), `&x` names why x has no
address, and a varargs function's named parameter with two DIEs shows the last one's value
everywhere, as gdb's lookups by name do."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.gdb import gdb_env
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

SOURCE = "opt_forms.c"


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("opt_forms", flags=("-g", "-O2"))


def _batch(prog: Path, *commands: str) -> tuple[str, str]:
    """Both debuggers' stdout and stderr are the same; ours."""
    args = [arg for command in commands for arg in ("-ex", command)]
    got = assert_like_gdb([*args, str(prog)], prog.parent)
    return got.stdout, got.stderr


def test_whatis_ptype_and_sizeof_read_no_pointer(prog: Path) -> None:
    out, _ = _batch(
        prog, f"break {SOURCE}:{marker_line(SOURCE, 'walk_after')}", "run",
        "print p", "whatis *p", "ptype *p", "print sizeof(*p)", "print sizeof(p[4])",
        "ptype p[1].tag", "whatis &*p", "whatis *g_null", "ptype g_null->tag[3]",
        "print sizeof(*g_null)", "whatis 1 / 0", "whatis g_x / 0",
        # `->` reads the pointer even for the type (gdb's value_struct_elt)
        "ptype p->tag[3]",
        # nothing written
        "print sizeof(g_x = 3)", "whatis g_x = 5", "ptype g_x += 9", "print g_x",
    )  # fmt: skip
    assert "type = struct rec\n" in out
    assert " = 32\n" in out
    assert out.splitlines()[-1].endswith(" = 4")  # g_x as it was


def test_whatis_reads_a_pointer_to_a_flexible_struct(prog: Path) -> None:
    # gdb's is_dynamic_type: a struct with a flexible array member is read through the
    # pointer even for its type, so an optimized-out pointer fails as print does
    _, errors = _batch(
        prog, f"break {SOURCE}:{marker_line(SOURCE, 'flex_after')}", "run",
        "print f", "whatis *f", "print sizeof(*f)", "whatis f[0]", "whatis f->data",
    )  # fmt: skip
    assert "value has been optimized out" in errors


def test_address_of_names_why_there_is_none(prog: Path) -> None:
    _, errors = _batch(
        prog, f"break {SOURCE}:{marker_line(SOURCE, 'walk_after')}", "run",
        "print &p", "whatis &p", "print &total", "whatis &total", "print &g_rec.high",
        "print &g_rec.low", "whatis &g_rec.high", "print &1", "print &(g_x + 1)", "whatis &1",
        "print &$rax", "print &g_x",
    )  # fmt: skip
    assert "Can't take address of \"p\" which isn't an lvalue." in errors


def test_a_parameter_with_two_dies_shows_the_last_ones_value(prog: Path) -> None:
    # gcc -O2 repeats sum's `count` (its address is taken) after the locals: gdb lists both
    # where each is declared and reads both (frame line, info args, print) from the last.
    out, _ = _batch(
        prog, "break sum", f"break {SOURCE}:{marker_line(SOURCE, 'sum_body')}", "run",
        "info args", "print count", "continue", "info args", "print count", "next", "info args",
    )  # fmt: skip
    assert "sum (count=<optimized out>, count=<optimized out>)" in out


def _stack_variables(prog: Path, gdb: bool) -> list[str]:
    client = MiClient(["-i=mi", "-q", str(prog)], cwd=prog.parent, gdb=gdb, env=gdb_env())
    try:
        client.prompt()
        client.ok("-break-insert sum")
        client.ok(f"-break-insert {SOURCE}:{marker_line(SOURCE, 'sum_body')}")
        listed = []
        for run in ("-exec-run", "-exec-continue"):
            client.ok(run)
            client.stopped()
            _, seen = client.command("-stack-list-variables --simple-values")
            listed += [line.split("^", 1)[1] for line in seen if "^done" in line]
        return listed
    finally:
        client.close()


def test_mi_lists_the_repeated_parameter_after_the_locals(prog: Path) -> None:
    ours, gdbs = _stack_variables(prog, False), _stack_variables(prog, True)
    assert ours == gdbs
    assert ours[0].count('name="count"') == 2
