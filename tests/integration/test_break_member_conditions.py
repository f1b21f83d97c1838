"""A condition on a class member, at a breakpoint with a location in methods of several
classes (cond_members.cpp), against gdb 13: the member is known in its class's method and
its bases' (gdb's parser finds it through `this`), unknown in the others, whose locations
are disabled with gdb's warning; a location disabled by hand is not warned about."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder, find_cxx

pytestmark = [needs_gdb, pytest.mark.skipif(find_cxx() is None, reason="no C++ compiler")]


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("cond_members")


def test_member_conditions_disable_the_locations_of_other_classes(prog: Path) -> None:
    out = output_like_gdb(prog, [
        "break func if a == 10", "break func if c == 30", "break func if b == 20", "info breakpoints",
        "disable 2.2", "cond 2 c == 30", "cond 2 b == 20", "info breakpoints",
    ])  # fmt: skip
    assert 'warning: failed to validate condition at location 1, disabling:\n  No symbol "a"' in out
    assert "2.2                         n" in out
