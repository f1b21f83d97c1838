"""Breakpoint command lists, save breakpoints and continue N against gdb 13 on one program
(daily_flow.c): `commands` read from a command file and run at the stop (`silent`,
`continue` inside them, no number for the last breakpoint), shown by info breakpoints;
the file `save breakpoints` writes and what `source` makes of it in a new session."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import assert_script_like_gdb, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder, marker_line
from tests.support.gdb import gdb_path
from tests.support.mi_client import ROOT

pytestmark = needs_gdb
MARK = "---"


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("daily_flow")


def _after_mark(text: str) -> str:
    return normalized(text.split(MARK + "\n", 1)[-1])


def _script(tmp_path: Path, name: str, lines: list[str]) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def _compare(prog: Path, script: Path) -> str:
    """Both debuggers run the command file; what follows the mark must be the same."""
    return assert_script_like_gdb(script, prog, script.parent, _after_mark)


def test_commands_run_at_the_stop_silent_and_continuing(prog: Path, tmp_path: Path) -> None:
    out = _compare(prog, _script(tmp_path, "cmds", [
        f"echo {MARK}\\n",
        "break add", "commands 1", "  silent", "  print value", "  continue", "end",
        "tbreak depth", "commands", "print n", "end",  # no number: the last breakpoint set
        "break square", "commands", "print x", "bt 1", "continue", "end",
        "run", "echo after-run\\n", "info breakpoints", "continue",
    ]))
    assert "$6 = 5\n\nTemporary breakpoint 2, depth (n=3)" in out  # the silent stops printed nothing
    assert "        silent\n        print value\n        continue\n" in out


def test_commands_of_a_stop_that_is_not_silent(prog: Path, tmp_path: Path) -> None:
    out = _compare(prog, _script(tmp_path, "cmds", [
        "break add", "commands", "print value * 10", "end", "run", f"echo {MARK}\\n", "continue",
        "info breakpoints",
    ]))
    assert out.startswith("\nBreakpoint 1, add (value=1)") and "$2 = 10" in out


def _saved_breakpoints(tmp_path: Path, name: str) -> list[str]:
    return [
        "break add if value > 2", "ignore 1 1", "commands", "print value", "end",
        f"tbreak daily_flow.c:{marker_line('daily_flow.c', 'square')}", "disable 2",
        "break depth", "commands", "silent", "print n", "continue", "end",
        f"save breakpoints {name}",
    ]


def test_save_breakpoints_writes_gdb_file(prog: Path, tmp_path: Path) -> None:
    lines = _saved_breakpoints(tmp_path, "saved.gdb") + ["watch total", "rwatch total", "disable 5",
                                                          "save breakpoints all.gdb"]
    script = _script(tmp_path, "cmds", lines)
    args = ["-batch", "-nx", "-x", str(script), str(prog)]
    theirs(args, tmp_path)
    expected = {name: (tmp_path / name).read_text() for name in ("saved.gdb", "all.gdb")}
    for name in expected:
        (tmp_path / name).unlink()
    ours(args, tmp_path)
    assert {name: (tmp_path / name).read_text() for name in expected} == expected
    assert "  condition $bpnum value > 2\n  ignore $bpnum 1\n  commands\n    print value\n  end\n" \
        in expected["saved.gdb"]


def test_saved_breakpoints_sourced_in_a_new_session(prog: Path, tmp_path: Path) -> None:
    saving = _script(tmp_path, "save", _saved_breakpoints(tmp_path, "saved.gdb"))
    theirs(["-batch", "-nx", "-x", str(saving), str(prog)], tmp_path)
    out = _compare(prog, _script(tmp_path, "restore", [
        "source saved.gdb", "run", f"echo {MARK}\\n", "info breakpoints", "continue",
    ]))
    assert out.startswith("Num ") and "\tstop only if value > 2\n\tbreakpoint already hit 2 times\n        print value\n" in out


@pytest.mark.parametrize("command", ["save", "save foo x", "save breakpoints", "commands 9\nend"])
def test_save_and_commands_errors(prog: Path, tmp_path: Path, command: str) -> None:
    _compare(prog, _script(tmp_path, "cmds", ["break add", f"echo {MARK}\\n", *command.split("\n"),
                                              "echo next\\n"]))


def _typed(prog: Path, commands: list[str]) -> tuple[str, str]:
    """Both debuggers given -ex commands without -batch (gdb's from_tty), up to the kill."""
    args = ["-nx", "-q", "-iex", "set width 0", *(word for command in commands for word in ("-ex", command)), str(prog)]

    def upto_kill(text: str) -> str:
        return re.sub(r"process \d+", "process N", normalized(text).split("(gdb)")[0])

    expected, got = theirs(args, prog.parent), ours(args, prog.parent)
    return upto_kill(got.stdout + got.stderr), upto_kill(expected.stdout + expected.stderr)


def test_continue_n_ignores_the_stop_breakpoint(prog: Path) -> None:
    got, expected = _typed(prog, ["break add", "run", "continue 3", "next", "continue 2", "info breakpoints",
                                  "kill"])
    assert got == expected
    assert "Will ignore next 2 crossings of breakpoint 1.  Continuing.\n" in got
    assert "Not stopped at any breakpoint; argument ignored.\nContinuing.\n" in got


def test_if_and_while_in_a_command_file_and_a_breakpoint_list(prog: Path, tmp_path: Path) -> None:
    """gdb's control commands: in the file (a loop with loop_continue and loop_break, an
    if with else, a python block inside a while) and in a breakpoint's list, where `if`
    chooses between printing and continuing; the list is shown nested."""
    out = _compare(prog, _script(tmp_path, "cmds", [
        f"echo {MARK}\\n",
        "set $i = 0",
        "while $i < 6",
        "  set $i = $i + 1",
        "  if $i == 2",
        "    loop_continue",
        "  end",
        "  if $i == 5",
        "    loop_break",
        "  else",
        "    printf \"i=%d\\n\", $i",
        "  end",
        "  python",
        "if True:",
        "    print('py')",
        "  end",
        "end",
        "print $i",
        "break add",
        "commands",
        "  silent",
        "  if value > 3",
        "    printf \"big %d\\n\", value",
        "  else",
        "    printf \"small %d\\n\", value",
        "    continue",
        "  end",
        "end",
        "info breakpoints",
        "run",
        "echo stopped\\n",
        "while value < 5",
        "  continue",
        "end",
        "if",
    ]))
    assert "i=1\npy\ni=3\npy\ni=4\npy\n$1 = 5\n" in out
    assert "small 0\nsmall 1\nsmall 2\nsmall 3\nbig 4\nstopped\nbig 5\n" in out
    assert "        if value > 3\n          printf \"big %d\\n\", value\n        else\n" in out
    assert out.rstrip().endswith("Error in sourced command file:\nif command requires an argument.")


def test_commands_typed_read_their_lines_with_gdb_prompts(prog: Path, tmp_path: Path) -> None:
    """`commands`, `if` and `while` typed (not from a file) read the lines that follow from
    the same input, each after gdb's `>` prompt, one blank more a level. The symbol cache
    is cold: a short first load prints nothing gdb does not."""
    typed = "\n".join([
        "set width 0", "break add", "commands", "silent", "if value == 2", "print value", "end", "end",
        "info breakpoints",
        "commands 9", "run", "if 1", "echo yes\\n", "else", "echo no\\n", "end", "while 0", "end",
        "set $n = 0", "while $n < 2", "set $n = $n + 1", "continue", "end", "kill",
    ]) + "\n"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               XDG_CACHE_HOME=str(tmp_path))
    runs = [[str(gdb_path()), "-nx", "-q", str(prog)], [sys.executable, "-m", "aliceserver", "-nx", "-q", str(prog)]]
    expected, got = (
        subprocess.run(argv, input=typed, capture_output=True, text=True, timeout=120, cwd=prog.parent,
                       env=env).stdout  # fmt: skip
        for argv in runs
    )

    def kept(text: str) -> str:
        """Up to the kill."""
        return normalized(text.split("(gdb) quit")[0]).split("Kill the program being debugged?")[0]

    assert kept(got) == kept(expected)
    assert "(gdb) >> > >>(gdb) Num " in got and "No breakpoint number 9." in got
    assert "(gdb)  > > > >yes\n(gdb)  >" in got and "$1 = 2\n" in got


def test_a_python_block_in_a_list_keeps_its_lines_as_written(prog: Path, tmp_path: Path) -> None:
    """gdb keeps a python block's lines verbatim (its `if ...:` opens nothing) and shows
    them unindented in info breakpoints; the block runs at the stop."""
    out = _compare(prog, _script(tmp_path, "cmds", [
        f"echo {MARK}\\n",
        "break add", "commands", "  silent", "  python", "if True:", "    print('py', 1)", "  end",
        "  while 0", "    echo x", "  end", "end", "info breakpoints", "run",
    ]))
    assert "        python\nif True:\n    print('py', 1)\n        end\n        while 0\n" in out
    assert out.endswith("\npy 1")


def test_if_takes_a_struct_by_its_bytes(builder: Builder, tmp_path: Path) -> None:
    """gdb's value_true: a struct is true when a byte of it is not zero (no `== 0` for it),
    a pointer and a char compare with zero."""
    program = builder.build("cond_types")
    out = _compare(program, _script(tmp_path, "cmds", [
        f"break cond_types.c:{marker_line('cond_types.c', 'recurse')}", "run", f"echo {MARK}\\n",
        "if *c", "  echo struct\\n", "end", "if c", "  echo pointer\\n", "end",
        "if c->tag", "  echo tag\\n", "else", "  echo notag\\n", "end",
    ]))
    assert out.endswith("struct\npointer\ntag")
