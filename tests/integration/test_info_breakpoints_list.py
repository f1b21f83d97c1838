"""`info breakpoints LIST` and `info watchpoints [LIST]` as gdb's breakpoint_1 prints them:
only the rows LIST names (numbers, ranges, `$` values), only watchpoints for `info
watchpoints`, the address column sized by the rows shown (a watchpoint has no address
until the program runs), and gdb's words for a list naming nothing or naming badly. Both
used to print the whole table whatever they were given."""

from __future__ import annotations

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import PROGRAMS_DIR, Builder, marker_line

pytestmark = [needs_gdb, pytest.mark.timeout(120)]


def test_info_breakpoints_and_watchpoints_take_a_list_like_gdb(builder: Builder) -> None:
    prog = builder.build("watch", flags=("-g", "-O0"))
    line = marker_line(PROGRAMS_DIR / "watch.c", "counter")
    commands = (
        "info watchpoints", "break main", f"tbreak watch.c:{line}",
        "info breakpoints 2", "info breakpoints 5", "info break 1-2", "info watchpoints 2",
        "info watchpoints foo", "watch global_counter", "info watchpoints", "info watchpoints 3",
        "info watchpoints 1", "info breakpoints 1 3", "info breakpoints $bpnum", "info breakpoints foo",
        "info breakpoints 1-", "info breakpoints 0", "info breakpoints 3-1",
        "run", "info watchpoints", "info watchpoints 1-3", "delete 1", "info breakpoints 1", "info breakpoints",
    )  # fmt: skip
    got = assert_like_gdb([*ex(*commands), str(prog)], prog.parent)
    assert "No watchpoint matching '1'." in got.stdout  # the list was read, not ignored
