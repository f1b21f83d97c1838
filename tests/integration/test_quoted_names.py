"""Quoted names in linespecs and expressions against gdb 13 on a C++ program: `break
'Widget::operator new'`, `'ns::twice(int)'`, `'ident<int>'`, `list`/`info line`/`info scope`
of one, and gdb's errors, which name a quoted function without its quotes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder, find_cxx

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    if find_cxx() is None:
        pytest.skip("g++ not installed")
    return MoreBuilder(builder.cache_dir).build_cpp("quoted_names")


def _like_gdb(prog: Path, commands: list[str]) -> str:
    args = ["-batch", "-nx", *ex(*commands), str(prog)]
    expected, got = theirs(args, prog.parent), ours(args, prog.parent)
    assert normalized(got.stdout) == normalized(expected.stdout)
    assert normalized(got.stderr) == normalized(expected.stderr)
    return got.stderr


def test_quoted_names_found_like_gdb(prog: Path) -> None:
    _like_gdb(prog, ["break 'Widget::operator new'", "break 'ns::twice'", "break 'ident<int>'",
                     "break 'Widget::operator+'", "break 'ns::twice(int)'", "break \"ns::twice\"",
                     "info breakpoints", "print 'ns::twice'", "list 'ns::twice'", "info scope 'ident<int>'",
                     "run", "bt 1"])  # fmt: skip


def test_quoted_names_not_found_in_gdbs_words(prog: Path) -> None:
    errors = _like_gdb(prog, ["break 'nosuch thing'", "tbreak \"no such\"", "break 'quoted_names.cpp':'nosuch'",
                              "list 'x y'", "info line 'x y'", "info scope 'x y'", "break main", "run",
                              "frame function 'x y'", "until 'x y'", "advance 'x y'"])  # fmt: skip
    assert 'Function "nosuch thing" not defined.' in errors
