"""Reverse execution is not done here, and says so in gdb's words: `reverse-step` and its
kin (`rs`, `rn`, `rsi`, `rni`, `rc`, `reverse-finish`) fail as gdb's do on a target without a
record of the execution, naming the target on top (None, exec, multi-thread). An
ambiguous abbreviation lists its commands cut as gdb cuts them (`reverse-`). `stop`, gdb's
placeholder for the hook run at each stop, is a command that does nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

REVERSE = ["reverse-step", "rs", "reverse-next 2", "rn", "reverse-stepi", "rsi", "reverse-nexti", "rni",
           "reverse-continue", "rc", "reverse-finish", "reverse-", "stop"]  # fmt: skip


def both(args: list[str], cwd: Path) -> str:
    expected, got = theirs(args, cwd), ours(args, cwd)
    assert normalized(got.stderr) == normalized(expected.stderr)
    assert normalized(got.stdout) == normalized(expected.stdout)
    return got.stderr


def test_reverse_commands_without_a_program(tmp_path: Path) -> None:
    shown = both(["-batch", "-nx", *ex(*REVERSE)], tmp_path)
    assert shown.count("Target None does not support this command.") == 11
    assert "reverse-step..." in shown


def test_reverse_commands_on_a_program_and_a_process(builder: Builder) -> None:
    program = builder.build("cli_prog")
    shown = both(["-batch", "-nx", *ex(*REVERSE[:3], "break main", "run", *REVERSE), str(program)], program.parent)
    assert "Target exec does not support this command." in shown
    assert shown.count("Target multi-thread does not support this command.") == 11
