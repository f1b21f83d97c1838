"""`x@entry` in expressions (gdb's ENTRY token after a parameter's name): its value at the
function's entry from the caller's call site at -O2; gdb's errors where the call site gives
none (a call's result, or -O0 code without call sites) and for names that are no
parameters; its type for whatis; not an lvalue; the same in MI's -data-evaluate-expression."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.mi_client import mi_stopped_at

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_EXPRESSIONS = ("a1@entry", "a2@entry", "a1@entry * 2 + a2@entry", "-a1 @ entry", "sizeof(a2@entry)",
                "&a1@entry", "a1@entry = 1", "local@entry", "counter@entry", "nosuch@entry",
                "(a1)@entry", "a1@entry@entry", "$pc@entry + 1", "nosuch1 + nosuch2 * a1@entry")  # fmt: skip


@pytest.mark.parametrize("optimize", ["-O2", "-O0"])
def test_print_entry_values_like_gdb(builder: Builder, tmp_path: Path, optimize: str) -> None:
    program = builder.build("entry_expr", ("-g", optimize))
    args = ["-ex", f"break entry_expr.c:{marker_line('entry_expr.c', 'scaled')}",
            "-ex", f"break entry_expr.c:{marker_line('entry_expr.c', 'unknown')}", "-ex", "run"]  # fmt: skip
    for expression in _EXPRESSIONS:
        args += ["-ex", f"print {expression}", "-ex", f"whatis {expression}"]
    args += ["-ex", "continue", "-ex", "print a1@entry", "-ex", "output a1@entry", str(program)]
    got = assert_like_gdb(args, tmp_path)
    assert "$1 = 5" in got.stdout or "cannot find DW_TAG_call_site" in got.stderr


def _mi_answers(program: Path, cwd: Path, *, gdb: bool) -> list[str]:
    with mi_stopped_at(program, f"entry_expr.c:{marker_line('entry_expr.c', 'scaled')}", cwd, gdb=gdb) as mi:
        answers = []
        for expression in ("a1@entry", "a2@entry", "local@entry"):
            record, _ = mi.command(f'-data-evaluate-expression "{expression}"')
            answers.append(repr((record.cls, record.results)))
        return answers


def test_mi_evaluates_entry_values_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("entry_expr", ("-g", "-O2"))
    ours = _mi_answers(program, tmp_path, gdb=False)
    assert ours == _mi_answers(program, tmp_path, gdb=True)
    assert "'5'" in ours[0]
