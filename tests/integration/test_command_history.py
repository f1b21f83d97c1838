"""gdb's command history at a terminal, side by side with gdb 13 on a pseudo-terminal:
`show commands` (the last ten lines, around N, `+` for the next ten), the history read
from .gdb_history when the session starts (GDBHISTSIZE its size), and `set history save
on` writing the session's lines back at the end (appended, the file cut to `history
size`; the whole history into a file not there yet). Ours kept no history: `show
commands` was an error and `set history save on` was refused (gdb.base/setshow.exp
"set history save on", "show history save (on)"). Nothing is kept in -batch, as in gdb.
`set history expansion on` (refused before: setshow.exp "set history expansion on")
expands `!` as readline does."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb
from tests.support.terminal import PROMPT, Terminal, debugger_command

pytestmark = [needs_gdb, pytest.mark.timeout(240)]

_SEED = "show commands\nset history filename saved\nprint 1\n  print 2  \n# comment\nquit\n"

_FIRST = ["show commands", "set history filename saved", "set history save on", "print 1", "  print 2  ",
          "server print 3", "# comment", "show commands", "show history save"]  # fmt: skip
_SECOND = ["show commands", "set history filename saved", "set history save on", "set history size 5", "print 5",
           "show commands", "show commands 7", "show commands +", "show commands 1+1", "set history size 2",
           "show commands", "set history size 0", "print 7", "show commands", "set history size 3", "print 8",
           "show commands"]  # fmt: skip


# `set history expansion on`: readline's expansions, gdb printing each expanded line; an
# expansion's error printed and the line run as typed.
_EXPANDED = ["set history expansion on", "show history expansion", "print 1", "!!", "!pr", "!-2", "!2",
             "print 5 != 3", "print !0", "echo hi!\\n", "print 2+3", "!!:0", "!!:$", "!?5 !?", "print 'a!'",
             "!!:p", "print 10 + 20", "^20^30^", "!!:s/10/11/", "!!:gs/1/2/", 'print "!x"', "echo !!:q\\n",
             "echo dir/file.ext\\n", "echo !!:1:t", "echo !-2:1:h", "echo !e:1:r", "echo !-4:1:e", "print 4 + 5",
             "!!:1-2", "!p:*", "!p:^", "echo !?+ 5?:%\\n", "print 6 + !#", "echo !!:9", "echo !!:z", "show commands"]  # fmt: skip


# `set history remove-duplicates N`: a line typed again drops its copy among the last N
# (never one from before the session beyond the lines typed in it).
_DUPLICATES = ["set history remove-duplicates 2", "show history remove-duplicates", "print 1", "print 2", "print 1",
               "print 3", "print 1", "show commands", "set history remove-duplicates unlimited", "print 2",
               "show commands", "show commands", "set history remove-duplicates -1", "set history remove-duplicates",
               "show history remove-duplicates", "show commands"]  # fmt: skip


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("history")
    (where / "prog.c").write_text("int main(void) { return 0; }\n")
    subprocess.run(["gcc", "-g", "-O0", "-o", "prog", "prog.c"], cwd=where, check=True)
    return where / "prog"


def _session(
    which: str, where: Path, lines: list[str], env_extra: dict[str, str]
) -> tuple[str, str | None]:
    """What the session printed and the history file it left (None: none)."""
    argv, env = debugger_command(which, where)
    env.update(env_extra)
    terminal = Terminal([*argv, "-nx", "-q", str(where / "prog")], env, where)
    printed = terminal.read_until(PROMPT).decode(errors="replace")
    for line in lines:
        printed += terminal.command(line)
    os.write(terminal.fd, b"quit\n")
    assert terminal.close() == 0
    printed += terminal.output.decode(errors="replace")
    saved = where / "saved"
    printed = printed.replace("\r\n", "\n").replace(str(where), "DIR")
    return printed, saved.read_text() if saved.exists() else None


@pytest.mark.parametrize(
    ("seeded", "lines", "env"),
    [
        (False, _FIRST, {}),
        (True, _SECOND, {}),
        (True, ["show commands", "show history size"], {"GDBHISTSIZE": "3"}),
        (False, _EXPANDED, {}),
        (True, _DUPLICATES, {}),
    ],
)
def test_history_like_gdb(
    program: Path, tmp_path: Path, seeded: bool, lines: list[str], env: dict[str, str]
) -> None:
    results = []
    for which in ("gdb", "aliceserver"):
        where = tmp_path / which
        where.mkdir()
        (where / "prog").symlink_to(program)
        if seeded:
            (where / ".gdb_history").write_text(_SEED)
            (where / "saved").write_text(_SEED)
        results.append(_session(which, where, lines, env))
    assert results[1] == results[0]
    assert "show commands" in results[1][0]


def test_no_history_in_batch(program: Path) -> None:
    saved = program.parent / "batch_saved"
    got = output_like_gdb(program, ["show commands", f"set history filename {saved}", "set history save on",
                                    "show commands", "show history save", "show history expansion on", "show confirm off"])  # fmt: skip
    assert "is on." in got and not saved.exists()
