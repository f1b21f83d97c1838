"""gdb's `help` (gdb.base/help.exp, default.exp): alone and as `h`, gdb's list of command
classes; a name that is no command, gdb's error (`help gotcha`, `help info
bogus-gdb-command`); the prefixes whose lists we hold (`help info`, `help set print`,
`help target`...), gdb's text and list. gdb's full documentation of a command or a class,
which aliceserver does not hold, is refused by name (it printed a list of every command
name for any `help` before), and so is `apropos` (an undefined command before), as gdb's
licence texts are (`show copying|warranty`, `info warranty`); a user's alias documented (`document mybt`) has its help."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_script_like_gdb, ex, needs_gdb, ours, output_like_gdb
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


def test_help_like_gdb(builder: Builder) -> None:
    prog = builder.build("mi_prog", flags=("-g", "-O0"))
    out = output_like_gdb(prog, ["help", "h", "help gotcha", "help info bogus-gdb-command", "help info", "help i",
                                 "help set print", "help set p", "help set pr", "help set check", "help set ch",
                                 "help set history", "help set logging", "help target", "help unset",
                                 "help overlay", "help show nosuch", "apropos", "apropos -v", "info w",
                                 "info wa"])
    assert out.startswith("List of classes of commands:\n\naliases -- User-defined aliases of other commands.\n")


def test_help_of_a_command_refused_by_name(builder: Builder) -> None:
    prog = builder.build("mi_prog", flags=("-g", "-O0"))
    commands = ["help break", "help running", "help info frame", "apropos break"]
    got = ours(["-batch", "-nx", *ex(*commands, "show copying", "show warranty", "info warranty"), str(prog)],
               prog.parent)
    assert got.stdout == ""
    assert got.stderr.splitlines() == [
        *(f'"{command}" is not supported by aliceserver (gdb\'s manual has it).'
          for command in ("help break", "help running", "help info frame", "apropos")),
        *(f'"{command}" is not supported by aliceserver.' for command in ("show copying", "show warranty",
                                                                          "info warranty"))]


_ALIASES = """alias mybt = backtrace
alias mybt10 = backtrace 10
alias mywhere = bt
document mybt
An alias of command backtrace without any args.
end
document mybt10
An alias of command backtrace with arg 10.
end
document mywhere
Two
lines.
end
help mybt
help mybt10
help mywhere
document {last}
x
end
"""


@pytest.mark.parametrize("last", ["where", "bt", "nosuch"])
def test_documented_aliases_like_gdb(builder: Builder, tmp_path: Path, last: str) -> None:
    """`document ALIAS` of a user's alias, and its help (help.exp's mybt, mybt10); a
    built-in alias is gdb's error. Ours said every alias was a built-in command."""
    prog = builder.build("mi_prog", flags=("-g", "-O0"))
    script = tmp_path / "aliases.gdb"
    script.write_text(_ALIASES.format(last=last))
    out = assert_script_like_gdb(script, prog, tmp_path, lambda text: text)
    assert "  alias mybt10 = backtrace 10\nAn alias of command backtrace with arg 10.\n" in out
