"""Without a frame (before `run`), gdb looks names up in the static block of its current
source file, the one `list` last showed: after `list f2`, `ptype foo` is f2's file's
typedef and `print sv` its file-static (gdb.base/ptype.exp's "ptype foo typedef after
list of charfoo"); ours always took the first unit's. Side by side with gdb 13."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_FIRST = """\
typedef int foo;
static int sv = 1;
foo f2(int);
int f1(foo a)
{
  return f2(a) + sv;
}
int main(void) { return f1(3); }
"""

_SECOND = """\
typedef char foo;
static int sv = 2;
foo f2 (int a)
{
  return a * 2 + sv;
}
"""

_QUERIES = [
    "ptype foo",
    "whatis foo",
    "print sv",
    "print sizeof(foo)",
    "print (foo)65",
    "whatis sv + 1",
]


def test_names_of_the_listed_file_first(tmp_path: Path) -> None:
    (tmp_path / "first.c").write_text(_FIRST)
    (tmp_path / "second.c").write_text(_SECOND)
    subprocess.run(
        ["gcc", "-g", "-O0", "-o", "scoped", "first.c", "second.c"], cwd=tmp_path, check=True
    )
    got = output_like_gdb(
        tmp_path / "scoped", ["list f2", *_QUERIES, "list f1", *_QUERIES, "list f2", *_QUERIES]
    )
    assert "$1 = 2" in got and "type = char" in got
