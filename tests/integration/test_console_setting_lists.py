"""gdb's setting prefixes typed alone and settings shown as gdb shows them
(gdb.base/default.exp): `set print`, `set check`, `set history` and the others list their
subcommands, `show check` and `show print` show each setting under them, `show` and `info
set` all of ours, `info` lists its subcommands. `show print demangle|asm-demangle|union|
array|vtbl` and `show write` show gdb's defaults (we behave so; another value is refused),
`show charset` its three sets with what auto stands for, `show osabi` gdb's two lines,
`show style enabled` and `show solib-search-path` gdb's words. Bare `run` and `start`
with no program say what gdb says, `Starting program:` at a terminal too."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, output_like_gdb, theirs
from tests.support.build import Builder
from tests.support.terminal import PROMPT, Terminal, debugger_command

pytestmark = [needs_gdb, pytest.mark.timeout(240)]

_SHOWN = ["show print demangle", "show print asm-demangle", "show print union", "show print array",
          "show print vtbl", "show write", "set print demangle", "set print union", "set print asm-demangle off",
          "set print array off", "set print vtbl off", "set write off", "show print union", "show osabi",
          "show charset", "show host-charset", "show target-charset", "show target-wide-charset",
          "set target-charset ASCII", "show charset", "show style enabled", "set solib-search-path /x",
          "show solib-search-path"]
_LISTS = ["set print", "set p", "set pr", "set check", "set c", "set ch", "set history", "set backtrace",
          "set breakpoint", "set logging", "set style", "set tcp", "set python", "set debuginfod", "show check",
          "show c", "show ch", "info", "i"]


def test_settings_shown_and_listed_like_gdb(builder: Builder) -> None:
    prog = builder.build("mi_prog", flags=("-g", "-O0"))
    output_like_gdb(prog, [*_SHOWN, *_LISTS])


def _lines(args: list[str], cwd: Path) -> tuple[list[str], list[str]]:
    """gdb's and our lines of settings (`NAME:  ...`: no environment variables)."""
    def kept(text: str) -> list[str]:
        return [line for line in normalized(text).splitlines() if re.match(r"[a-z][-a-z ]*:  ", line)]

    return kept(theirs(args, cwd).stdout), kept(ours(args, cwd).stdout)


def test_show_lists_are_gdbs_lines_of_our_settings(builder: Builder) -> None:
    """gdb also shows the settings we refuse: ours are its lines less those, in its order."""
    prog = builder.build("mi_prog", flags=("-g", "-O0"))
    for command in ("show print", "show p", "info set"):
        expected, got = _lines(["-batch", "-nx", *ex(command), str(prog)], prog.parent)
        kept = [line for line in expected if line in got]
        # ours alone, or shown otherwise in -batch (gdb's history size is -2 until it reads a
        # terminal), or off here where gdb's are on (what aliceserver never loads: auto_load.py)
        own = ("breakpoint jump-patches:", "history size:", "debuginfod enabled:", "environment:", "remotecache:",
               "radix:", "user:", "auto-load gdb-scripts:", "auto-load libthread-db:", "auto-load local-gdbinit:")
        assert [line for line in got if line in expected] == kept
        assert len(kept) > 20
        assert [line for line in got if line not in expected and not line.startswith(own)] == [], command
    expected, got = _lines(["-batch", "-nx", *ex("show"), str(prog)], prog.parent)
    for wanted in ("confirm:  ", "listsize:  ", "print elements:  ", "write:  ", "prompt:  ", "check type:  "):
        assert [line for line in got if line.startswith(wanted)] == [
            line for line in expected if line.startswith(wanted)], wanted


def test_run_without_a_program_like_gdb(tmp_path: Path) -> None:
    args = ["-batch", "-nx", *ex("start", "starti", "run")]
    expected, got = theirs(args, tmp_path), ours(args, tmp_path)
    assert got.stderr == expected.stderr


def _typed(which: str, where: Path, lines: list[str]) -> str:
    argv, env = debugger_command(which, where)
    terminal = Terminal([*argv, "-nx", "-q"], env, where)
    printed = terminal.read_until(PROMPT).decode(errors="replace")
    for line in lines:
        printed += terminal.command(line)
    os.write(terminal.fd, b"quit\n")
    assert terminal.close() == 0
    return printed.replace("\r\n", "\n")


def test_bare_commands_typed_at_a_terminal_like_gdb(tmp_path: Path) -> None:
    lines = ["run", "r", "target native", "target exec", "exec-file", "file", "info terminal"]
    got, expected = (_typed(which, tmp_path, lines) for which in ("aliceserver", "gdb"))
    assert got == expected
    assert "Starting program:  \n" in got


def test_prefix_refused_as_a_whole_stays_refused(builder: Builder) -> None:
    """`show remote` and `show style`: gdb's settings under them are refused but one, so
    the prefix is refused by name rather than shown as that one line."""
    prog = builder.build("mi_prog", flags=("-g", "-O0"))
    got = ours(["-batch", "-nx", *ex("show remote", "show style", "show style enabled"), str(prog)], prog.parent)
    assert got.stderr.splitlines() == ['The setting "remote" is not supported by aliceserver.',
                                       'The setting "style" is not supported by aliceserver.']
    assert got.stdout == "CLI output styling is disabled.\n"


@pytest.mark.parametrize(("variable", "value"), [("LC_ALL", "C"), ("LANG", "C"), ("LANG", "C.UTF-8")])
def test_charsets_by_the_locale_like_gdb(builder: Builder, monkeypatch: pytest.MonkeyPatch, variable: str,
                                         value: str) -> None:  # fmt: skip
    """In the C locale (gdb's testsuite's) auto stands for ANSI_X3.4-1968, strings' bytes
    past 127 in octal, and printcmds.exp's with_target_charset sets that name back (ASCII's
    other name); whether Python moved to UTF-8 there (LANG=C) or not (LC_ALL=C)."""
    prog = builder.build("mi_prog", flags=("-g", "-O0"))
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, value)
    output_like_gdb(prog, ["break add", "run", "up", "print msg", "show charset", "set target-charset ANSI_X3.4-1968",
                           "show target-charset", "print msg", "x/s msg", "set target-charset auto", "print msg",
                           "x/s msg"])  # (gdb's UTF-8 target on a C host: four bytes a character)
