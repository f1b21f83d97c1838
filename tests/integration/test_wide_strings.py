"""Wide character and string literals (L, u, U) and printf's %ls and %lc (gdb.base/
printcmds.exp's $wstr), and the convenience functions' reading of wide strings, side by side
with gdb 13, before and after `run`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder, marker_line

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_LITERALS = ('p L"ab"', "p L'a'", 'whatis L"ab"', "whatis L'a'", 'p u"ab"', 'p U"ab"', 'whatis u"ab"',
             "whatis u'a'", 'p sizeof(L"ab")', 'set var $wstr = L"facile"', 'printf "wstr val = %ls\\n", $wstr',
             'printf "[%lc]\\n", 65', 'printf "[%5ls|%-3lc]\\n", $wstr, 66', "p $wstr", 'p L"x" "y"', 'p L"é"',
             "p L'\\x41'", 'p L"a\\tb"', 'printf "[%lc%lc]\\n", 0x263A, 233', "p $_strlen(wide)",
             "p $_strlen(wptr)", "p $_streq(wide, wptr)", "p $_strlen(c16)", "p $_strlen(c32)", 'p $_strlen(L"abc")',
             'p $_regex(wptr, "^po")', "p $_strlen(&wide[1])")


def test_wide_strings_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("wide_strings")
    commands = ex(
        *_LITERALS, "p wide", "p c16", "p c32", "p wptr", 'printf "%ls|%ls\\n", wide, wptr', "p wide[0]",
        f"break wide_strings.c:{marker_line('wide_strings.c', 'main')}", "run",
        'printf "%ls|%ls|\\n", wide, wptr', 'printf "[%ls]\\n", 0', 'printf "%ls\\n", c32', *_LITERALS,
    )
    got = assert_like_gdb([*commands, str(program)], tmp_path)
    assert got.stdout.count("wstr val = facile") == 2
