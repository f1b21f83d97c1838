"""`set print static-members`, `set print max-depth` and `set print union` (and print's
`-static-members`, `-max-depth`, `-union` options) as gdb 13 prints with them; they were
refused ("not supported by aliceserver except as on" / "not supported"). Off, a class's
static members are left out, a union inside another value is `{...}`;
past max-depth a struct, union or array is `{...}`, a printer's text stays with its children
`{...}` (`std::vector of length 1, capacity 1 = {...}`), and a reference is at its referent's
depth (`p ref` at depth 1 shows the members)."""

from __future__ import annotations

import sys

import pytest

from tests.support.batch import batch_in_program_dir
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import CPP_FLAGS, MoreBuilder, find_cxx
from tests.support.gdb import gdb_path

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
]

HERE = f"print_depth.cpp:{marker_line(PROGRAMS_DIR / 'print_depth.cpp', 'here')}"


def test_static_members_and_max_depth_like_gdb(builder: Builder) -> None:
    program = MoreBuilder(builder.cache_dir).build_cpp("print_depth", CPP_FLAGS)
    commands = [
        f"break {HERE}", "run", "show print static-members", "set print static-members off", "print h.inner",
        "print h.items", "info locals", "set print static-members on", "print -static-members off -- h.inner.item",
        "set print max-depth 1", "show print max-depth", "print h", "print ref", "set print max-depth 0",
        "print ref", "print h.inner.deep", "print h.inner.item.price", "set print max-depth 2", "print h",
        "print -max-depth 1 -- h.byid", "set print max-depth unlimited", "show print max-depth",
        "set print union off", "print h", "print h.tag", "print -union on -- h", "show print union",
        "set print union on", "set print pretty on", "set print max-depth 1", "print h"]  # fmt: skip
    # (the program's environment the same under both: its stack addresses too)
    expected = batch_in_program_dir([str(gdb_path())], commands, program)
    shown = batch_in_program_dir([sys.executable, "-m", "aliceserver"], commands, program)
    assert shown == expected
    assert '$1 = {deep = {0, 0}, item = {name = "", price = 0}}' in shown, shown  # no statics
    assert "items = std::vector of length 1, capacity 1 = {...}" in shown, shown
    assert "(Holder &) {...}" in shown and "Maximum print depth is unlimited." in shown, shown
    assert "<Base> = {b = 0}, tag = {...}, inner" in shown and "tag = {i = 0, f = 0}" in shown, shown
