"""Before `run`, gdb has a file but no process: registers are "No registers." and there is
no thread ($_thread is 0, $_siginfo void). Ours read them from the copy of the program it
holds at its first instruction for its symbols (`$pc` was `<_start>`, `x/i $pc` showed it)."""

from __future__ import annotations

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(120)]

COMMANDS = ("print $pc", "print $sp", "print $rax", "x/i $pc", "output $rip", "print $_thread",
            "print $_gthread", "print $_siginfo", "info registers rip")


def test_no_registers_before_run(builder: Builder) -> None:
    prog = builder.build("src_basic", flags=("-g", "-O0"))
    args = [arg for command in COMMANDS for arg in ("-ex", command)]
    got = assert_like_gdb([*args, str(prog)], prog.parent)
    assert got.stderr.count("No registers.") >= 4
    assert "_start" not in got.stdout
