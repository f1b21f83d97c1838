"""A pointer whose location is DW_OP_implicit_pointer (-O2 folded the array it points to):
gdb 13 shows `<synthetic pointer>` (print with its `(T *) ` prefix, info locals, bt full,
MI's lists and -data-evaluate-expression), where it read `<optimized out>`; `*p`, `p[1]`
and `*(p + 2)` read the object it points to, `p + 1` is a synthetic pointer again (gdb
13 fails an internal check on arithmetic with what `*` reads there: left out)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

SOURCE = "synthetic_pointer.c"


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return builder.build("synthetic_pointer", ("-g", "-O2"))


def test_console_like_gdb(program: Path, tmp_path: Path) -> None:
    got = assert_like_gdb([*ex(
        f"break {SOURCE}:{marker_line(SOURCE, 'here')}", "run", "info locals", "print p", "output p",
        "whatis p", "bt full", "print *p", "print p[1]", "print p + 1", "print *(p + 2)",
    ), str(program)], tmp_path)  # fmt: skip
    assert "p = <synthetic pointer>" in got.stdout and " = 8192\n" in got.stdout


def _mi(program: Path, cwd: Path, *, gdb: bool) -> list[object]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        mi.ok(f"-break-insert {SOURCE}:{marker_line(SOURCE, 'here')}")
        mi.ok("-exec-run")
        mi.stopped()
        return [mi.ok(command).results for command in (
            "-stack-list-locals 1", "-stack-list-variables 2", "-data-evaluate-expression p",
            "-data-evaluate-expression p[1]")]  # fmt: skip
    finally:
        mi.close()


def test_mi_like_gdb(program: Path, tmp_path: Path) -> None:
    assert _mi(program, tmp_path, gdb=False) == _mi(program, tmp_path, gdb=True)
