"""After the program exits or is killed gdb has its file alone, read-only: reading a
global gives the file's value, writing one is gdb's "Cannot access memory at address X"
(ours holds a process for the symbols then, which must not take the write). The next
run writes again."""

from __future__ import annotations

import pytest

from tests.support.batch import needs_gdb, output_like_gdb
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_WRITES = ["print a3[0] = 9", "set variable a3[1] = 5", "print a3", "set {int}&a3[2] = 4",
           "print o.l = 3", "print o = {1}", "print o.l", "print $rax = 1"]  # fmt: skip


def test_writes_after_the_exit_like_gdb(builder: Builder) -> None:
    program = builder.build("brace_assign", ("-g", "-O0"))
    got = output_like_gdb(program, ["run", *_WRITES])
    assert "Cannot access memory at address 0x" in got


def test_writes_after_a_kill_then_in_the_next_run_like_gdb(builder: Builder) -> None:
    program = builder.build("brace_assign", ("-g", "-O0"))
    got = output_like_gdb(program, ["break main", "run", "kill", *_WRITES, "run", "print a3[0] = 9", "print a3"])
    assert "= {9, 0, 0}" in got
