"""gdb's user-defined commands against gdb 13 on one program (user_cmds.c): define with
$argc/$argN, nested if/while, document and help, show user, redefinition, define-prefix,
hooks (hook-NAME, hookpost-NAME, hook-stop), user commands in breakpoint lists and sourced
files, from MI's -interpreter-exec, and gdb's errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import assert_script_like_gdb, needs_gdb, normalized
from tests.support.build import Builder
from tests.support.gdb import gdb_path
from tests.support.mi_client import ROOT

pytestmark = needs_gdb


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("user_cmds")


def _compare(prog: Path, tmp_path: Path, lines: list[str]) -> str:
    script = tmp_path / "cmds.gdb"
    script.write_text("\n".join(lines) + "\n")
    return assert_script_like_gdb(script, prog, tmp_path, normalized)


def test_define_arguments_document_help_and_show_user(prog: Path, tmp_path: Path) -> None:
    out = _compare(prog, tmp_path, [
        "define adder", "  print $arg0 + $arg1 + $arg2", "end",
        "document adder", "Add three numbers.", "  Usage: adder A B C", "end",
        "adder 1 2 3", "help adder",
        "define showargs", "  # a comment", "  echo argc=$argc\\n", "  if $argc > 1", "    print $arg1",
        "  else", "    echo few\\n", "  end", "  set $n = 0", "  while $n < $argc", "    set $n = $n + 1",
        "  end", "  print $n", "end",
        "showargs", "showargs 7", "showargs 7 8",
        "define quoted", "echo $arg0|$arg1|$arg2|$arg01|$argcx\\n", "end", "quoted \"a b\" 'c d' e\\ f   ",
        "show user adder", "show user", "help user-defined",
        # gdb 13 keeps the old documentation of a redefined command in freed memory: not shown
        "define adder", "print $arg0", "end", "adder 42",
        "define echo", "print 5", "end", "echo hi\\n",
    ])
    assert "$1 = 6\nAdd three numbers.\n  Usage: adder A B C\n" in out
    assert 'Redefine command "adder"? (y or n) [answered Y; input not from terminal]\n$' in out
    assert 'Really redefine built-in command "echo"?' in out


def test_prefix_commands_and_hooks(prog: Path, tmp_path: Path) -> None:
    out = _compare(prog, tmp_path, [
        "define-prefix mycmds", "define mycmds one", "echo one:$argc:$arg0\\n", "end",
        "document mycmds one", "First sub.", "end",
        "mycmds one a", "mycmds o b", "mycmds", "help mycmds", "show user mycmds",
        "define hook-echo", "echo pre\\n", "end", "define hookpost-echo", "echo post\\n", "end",
        "echo mid\\n", "define hook-nosuch", "echo x\\n", "end", "help user-defined", "show user",
        # gdb 13 then names the subcommands of the old prefix by themselves: not shown
        "define mycmds", "echo body\\n", "end", "mycmds", "mycmds one z",
    ])
    assert "pre\nmid\npost\n" in out and "warning: Your new `hook-nosuch' command" in out


def test_user_commands_under_builtin_prefixes(prog: Path, tmp_path: Path) -> None:
    """gdb 13 lets `define` put a command under one of its own prefixes (info, show...),
    reached by the prefix's alias too, documented, listed and redefined as any other."""
    out = _compare(prog, tmp_path, [
        "define info mine", "echo mine $argc\\n", "end",
        "document info mine", "Docs of info mine.", "end",
        "define i other", "echo other $arg0\\n", "end",
        "info mine 1 2", "info other x", "help info mine", "show user info mine",
        "define show bar", "echo bar\\n", "end", "show bar", "help user-defined",
        "define info mine", "echo again\\n", "end", "info mine",
        "define-prefix info pre", "define info pre sub", "echo sub\\n", "end", "info pre sub",
        "info line main",
    ])
    assert "mine 2\nother x\nDocs of info mine.\n" in out
    assert "info mine -- Docs of info mine.\n" in out


def test_hook_stop_and_user_commands_in_breakpoint_lists(prog: Path, tmp_path: Path) -> None:
    out = _compare(prog, tmp_path, [
        "define hook-stop", "echo HOOK\\n", "print total", "end",
        "define shown", "print $arg0", "bt 1", "end",
        "break leaf", "commands", "silent", "shown msg", "if n == 2", "delete", "end", "continue", "end",
        "run",
    ])
    assert out.count("HOOK\n") == 4  # three stops, then the exit


@pytest.mark.parametrize("lines", [
    ["define toomany", "print $arg3", "end", "toomany 1 2"],
    ["define rec", "rec", "end", "rec"],
    ["define"], ["define bad!x", "end"], ["define nosuch sub", "end"], ["define print sub", "end"],
    ["define-prefix print"], ["document nosuch", "end"], ["document print", "end"],
    ["show user print"], ["show user nosuch"],
    ["define-prefix p2", "p2 zz"],
])
def test_errors_in_gdb_words(prog: Path, tmp_path: Path, lines: list[str]) -> None:
    _compare(prog, tmp_path, [*lines, "echo not reached\\n"])


def test_user_commands_from_mi_interpreter_exec(prog: Path) -> None:
    """MI reads the definition's lines from its own input, and runs it through
    -interpreter-exec console and as a console command."""
    lines = ["define adder", "print $arg0 + $arg1", "end", '-interpreter-exec console "adder 1 2"',
             "adder 3 4", '-interpreter-exec console "show user adder"', "-gdb-exit"]
    typed = "\n".join(lines) + "\n"
    gdb = gdb_path()
    assert gdb is not None
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    runs = [[gdb, "-i=mi", "-nx", "-q", str(prog)], [sys.executable, "-m", "aliceserver", "-i=mi", "-nx", "-q", str(prog)]]
    expected, got = (subprocess.run(argv, input=typed, capture_output=True, text=True, timeout=120,
                                    cwd=prog.parent, env=env).stdout.split("(gdb)", 1)[1] for argv in runs)
    assert got == expected
    assert '~"$1 = 3\\n"' in got and '~"$2 = 7\\n"' in got
