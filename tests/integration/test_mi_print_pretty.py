"""`set print pretty on` (Vim termdebug's prompt mode sends it) lays out the values MI
gives: -data-evaluate-expression answers as gdb 13's with it, a struct's members one per
line, base classes and `members of T:` (of a class inside another too), arrays of structs, and library values through
their printers (a map's pairs, a unique_ptr's child; a vector's elements stay on a line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import CPP_FLAGS, MoreBuilder, find_cxx
from tests.support.gdb import gdb_env, gdb_path
from tests.support.mi_client import MiClient

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
]

HERE = f"print_pretty.cpp:{marker_line(PROGRAMS_DIR / 'print_pretty.cpp', 'here')}"
# No stack addresses: gdb's and our program may see different environments.
EXPRESSIONS = ["pts", "der", "der.p", "*&der", "e", "fp", "vp", "mp", "tup", "up", "zeros", "der.arr", "pts[1].y",
               "ob", "wu", "outer", "nest", "lone"]


def _answers(program: Path, gdb: bool, pretty: str) -> list[str]:
    client = MiClient(["-nx", "-i=mi", str(program)], cwd=program.parent, gdb=gdb, env=gdb_env())
    try:
        client.ok("-enable-pretty-printing")
        client.ok(f"-gdb-set print pretty {pretty}")
        client.ok(f"-break-insert {HERE}")
        client.ok("-exec-run")
        client.stopped()
        return [str(client.ok(f"-data-evaluate-expression {e}").results["value"]) for e in EXPRESSIONS]
    finally:
        client.close()


@pytest.mark.parametrize("pretty", ["on", "off"])
def test_evaluate_lays_values_out_as_gdb(builder: Builder, pretty: str) -> None:
    program = MoreBuilder(builder.cache_dir).build_cpp("print_pretty", CPP_FLAGS)
    expected = _answers(program, True, pretty)
    if "std::vector of length" not in expected[EXPRESSIONS.index("vp")]:
        pytest.skip("gdb runs no libstdc++ printers here")
    got = _answers(program, False, pretty)
    assert list(zip(EXPRESSIONS, got, strict=True)) == list(zip(EXPRESSIONS, expected, strict=True))
