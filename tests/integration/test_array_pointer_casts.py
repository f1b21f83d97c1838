"""Casts to pointers to arrays, gdb's abstract declarators `T (*)[N]`, `T (**)[N]`,
`T (*(*))[N]`, `T (*)[N][M]` and `T (*)[]`: casts, whatis, ptype and sizeof, before the
run and in it, side by side with gdb 13 (ours read `(*)` as a function pointer's only and
gave a syntax error at the `[`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_SOURCE = """\
int pair[2] = {5, 7};
int grid[2][3] = {{1, 2, 3}, {4, 5, 6}};
int main(void) { return pair[0] + grid[1][2]; }
"""

_QUERIES = [
    "print *(char (*)[4])&pair", "whatis (int(*)[2])0", "ptype int(*)[3]", "print sizeof(int(*)[3])",
    "whatis (char(*(*))[4])0", "whatis (int(*)[2][3])0", "print *(int(*)[2])&pair",
    "print (int(*)[2])&pair", "output *(int (*)[2])&pair", "print ((int(*)[2])&pair)[0][1]",
    "print *(int(*)[3])grid[1]", "print (int(*)[])&pair", "print (*(int(**)[2])&grid)",
    "print (int(*)[2)0", "whatis (int(*)[x])0",
]  # fmt: skip


def test_array_pointer_casts_like_gdb(tmp_path: Path) -> None:
    (tmp_path / "arrays.c").write_text(_SOURCE)
    subprocess.run(["gcc", "-g", "-O0", "-o", "arrays", "arrays.c"], cwd=tmp_path, check=True)
    program = tmp_path / "arrays"
    got = output_like_gdb(program, [*_QUERIES, "break main", "run", *_QUERIES])
    assert "type = int (*)[2][3]" in got
