"""Tracepoint actions where they do not belong, refused in gdb 13's words: `collect`,
`teval` and a `while-stepping` block in a breakpoint's command list (gdb's
check_no_tracepoint_commands, from -break-commands and from `commands` in a script), and
typed at the top level ("This command can only be used in a tracepoint actions list.")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder
from tests.support.mi_script import both

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


def test_a_breakpoints_list_refuses_trace_actions_over_mi(builder: Builder, tmp_path: Path) -> None:
    prog = builder.build("cli_prog")
    commands = ["-break-insert -a add", "-break-insert main", '-break-commands 2 "collect total"',
                '-break-commands 2 "teval total"', '-break-commands 2 "while-stepping 2" "end"',
                '-break-commands 2 "print 1" "collect x"', '-break-commands 2 "if 1" "collect x" "end"',
                '-break-commands 2 "print 1" "col x"', '-break-commands 1 "collect a"', "-break-list"]  # fmt: skip
    expected, got = both(prog, commands, tmp_path)
    assert got == expected
    assert got.count('^error,msg="The \'collect\' command can only be used for tracepoints"') == 3


def test_actions_typed_alone_and_in_a_sourced_list(builder: Builder, tmp_path: Path) -> None:
    prog = builder.build("cli_prog")
    script = tmp_path / "lists.gdb"
    script.write_text("break main\ncommands 1\nprint 1\nteval 2\nend\ninfo breakpoints\n")
    got = assert_like_gdb([*ex("collect a", "teval 1", "while-stepping 2", "ws 1", "stepping 1", "col a",
                               f"source {script}", "info breakpoints"), str(prog)], tmp_path)  # fmt: skip
    assert "The 'teval' command can only be used for tracepoints" in got.stderr
