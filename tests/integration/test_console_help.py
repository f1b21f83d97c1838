"""gdb's `help` (gdb.base/help.exp, default.exp): alone and as `h`, gdb's list of command
classes; a name that is no command, gdb's error (`help gotcha`, `help info
bogus-gdb-command`); the prefixes whose lists we hold (`help info`, `help set print`,
`help target`...), gdb's text and list. gdb's full documentation of a command or a class,
which aliceserver does not hold, is refused by name (it printed a list of every command
name for any `help` before)."""

from __future__ import annotations

import pytest

from tests.support.batch import ex, needs_gdb, ours, output_like_gdb
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


def test_help_like_gdb(builder: Builder) -> None:
    prog = builder.build("mi_prog", flags=("-g", "-O0"))
    out = output_like_gdb(prog, ["help", "h", "help gotcha", "help info bogus-gdb-command", "help info", "help i",
                                 "help set print", "help set p", "help set pr", "help set check", "help set ch",
                                 "help set history", "help set logging", "help target", "help unset",
                                 "help overlay", "help show nosuch"])
    assert out.startswith("List of classes of commands:\n\naliases -- User-defined aliases of other commands.\n")


def test_help_of_a_command_refused_by_name(builder: Builder) -> None:
    prog = builder.build("mi_prog", flags=("-g", "-O0"))
    got = ours(["-batch", "-nx", *ex("help break", "help running", "help info frame"), str(prog)], prog.parent)
    assert got.stdout == ""
    assert got.stderr.splitlines() == [
        f'"help {name}" is not supported by aliceserver (gdb\'s manual has it).'
        for name in ("break", "running", "info frame")]
