"""-symbol-list-lines FILE, side by side with gdb 13: the file's line table as gdb builds
it (every entry by address, line 0 where a run of its code ends: at the end of a
sequence and where the code switches to another file), at link-time addresses before a
run and load addresses after; gdb's errors for a file no line table names and for a
wrong number of arguments."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

FILES = ["line_table.c", "line_table_part.c", "line_table.h", "nosuch.c"]


def _listings(program: Path, gdb: bool) -> list[str]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb)
    results: list[str] = []

    def list_all() -> None:
        for file in FILES:
            lines = mi.command(f"-symbol-list-lines {file}")[1]
            results.extend(line for line in lines if line[:1].isdigit())

    try:
        mi.prompt()
        list_all()
        results += mi.command("-symbol-list-lines")[1][-2:-1]
        results += mi.command("-symbol-list-lines a.c b.c")[1][-2:-1]
        mi.ok("-break-insert plus_square")
        mi.ok("-exec-run")
        mi.stopped()
        list_all()
    finally:
        mi.close()
    return results


@pytest.mark.parametrize("optimize", ["-O0", "-O2"])
def test_symbol_list_lines_like_gdb(builder: Builder, optimize: str) -> None:
    program = builder.build("line_table", extra=[optimize], also=["line_table_part"])
    expected = _listings(program, gdb=True)
    assert any('line="0"' in line for line in expected)
    assert any('pc="0x00005555' in line for line in expected)  # after the run: loaded
    assert _listings(program, gdb=False) == expected
