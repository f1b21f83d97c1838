"""gdb's ptype resolves the typedefs all along a declarator (under pointers, arrays,
qualifiers and a function's return type), not only at the top: a pointer to
`typedef char t[]` is `char (*)[]` (ours wrote `char [] *`), a pointer to a pointer
typedef `int **` (ours `int * *`); a function's parameters keep their typedef names, and
a qualifier of a pointer typedef below the top is lost as in gdb (`const intp *`: `int **`).
Side by side with gdb 13 (gdb.base/ptype.exp's `ptype pv_char_array`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_SOURCE = """\
typedef int myint;
typedef int *intp;
typedef char carr[];
typedef carr *carrp;
typedef int (*fn)(myint);
typedef struct { int a; } anon;
carr *pv;
myint *q;
intp *qq;
carrp *cc;
fn fns[3];
myint (*fa)[3];
carr **ca[2];
const carr *kc;
const intp *kq;
const intp k3;
intp const * const k6;
const myint *k1;
anon *ap;
myint (*ret)(myint);
int main(void) { return 0; }
"""

_NAMES = ["pv", "q", "qq", "cc", "fns", "fa", "ca", "kc", "kq", "k3", "k6", "k1", "ap", "ret"]


def test_ptype_resolves_declarator_typedefs(tmp_path: Path) -> None:
    (tmp_path / "decl.c").write_text(_SOURCE)
    subprocess.run(["gcc", "-g", "-O0", "-o", "decl", "decl.c"], cwd=tmp_path, check=True)
    commands = [f"{verb} {name}" for name in _NAMES for verb in ("ptype", "whatis")]
    got = output_like_gdb(tmp_path / "decl", commands)
    assert "type = char (*)[]" in got and "type = int **" in got
