"""gdb's skip list: `skip [FUNCTION]`, `skip function|file`, the -fi/-gfi/-fu/-rfu options,
`info skip`, `skip delete|enable|disable`, with gdb's words and errors; and `step` going
over a function the list names (by name, regex, file or glob), where `finish` is as ever.
Compared with gdb 13 on the same two-file program."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.adapter_process import alice_argv
from tests.support.batch import PATIENCE, assert_like_gdb, ex, needs_gdb, ours, theirs
from tests.support.dap_client import DapClient
from tests.support.dap_session import start_session
from tests.support.gdb import gdb_path
from tests.support.gdbserver import gdbserver_path
from tests.support.mi_client import ROOT

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_MAIN = """\
int helper(int x);
int twice(int x) { return 2 * x; }
int square(int x) { return x * x; }
int main(void) {
  int a = twice(3);
  int b = square(a);
  int c = helper(b);
  int d = twice(c);
  int e = square(d);
  return a + b + c + d + e > 0 ? 0 : 1;
}
"""
_HELPER = "int helper(int x) {\n  return x + 1;\n}\n"


@pytest.fixture
def prog(tmp_path: Path) -> Path:
    (tmp_path / "main.c").write_text(_MAIN)
    (tmp_path / "helper.c").write_text(_HELPER)
    program = tmp_path / "prog"
    subprocess.run(["gcc", "-g", "-O0", "-o", str(program), "main.c", "helper.c"], cwd=tmp_path, check=True)
    return program


def test_step_goes_over_skipped_functions_and_files_like_gdb(prog: Path) -> None:
    commands = ex("break main", "run", "skip twice", "skip file helper.c", "info skip", "step", "step",
                  "skip", "info skip", "finish", "step", "step", "skip disable 1", "step", "finish", "step",
                  "step", "skip delete", "info skip", "skip file", "info skip 4")
    got = assert_like_gdb([*commands, str(prog)], prog.parent)
    assert "Function twice will be skipped when stepping.\n" in got.stdout
    assert "square (x=6) at main.c:3" in got.stdout  # the one function not skipped at first
    assert "\n8\t  int d = twice(c);\n" in got.stdout  # helper.c's function went over
    assert "twice (x=37) at main.c:2" in got.stdout  # its entry disabled: stepped into
    assert "\n10\t  return a + b" in got.stdout  # the last square went over
    assert "Not skipping any files or functions.\n" in got.stdout


def test_skip_options_globs_and_regexes_like_gdb(prog: Path) -> None:
    commands = ex("break main", "run", "skip -gfi h*.c", "skip -rfu ^tw", "skip -fi main.c -fu square",
                  "info skip", "step", "step", "step", "step", "skip disable 2-3", "info skip", "step")
    got = assert_like_gdb([*commands, str(prog)], prog.parent)
    assert "Function square in file main.c will be skipped when stepping.\n" in got.stdout
    assert "\n9\t  int e = square(d);\n" in got.stdout  # every call on the way went over
    assert "square (x=74) at main.c:3" in got.stdout  # its entry disabled: stepped into


def test_skip_errors_and_lists_like_gdb(prog: Path) -> None:
    commands = ex("skip", "skip file", "skip function", "info skip", "skip delete", "skip enable 1",
                  "skip -fu", "skip -xx", "skip -fi a -gfi b", "skip -fu a -rfu b", "skip -fu a b",
                  "skip foo bar", "skip -rfu (", "skip -rfu [", "skip -rfu *a", "skip twice(int)",
                  "skip d", "skip f", "skip fi x.c", "skip fun y", "info skip", "info skip x", "info skip 0",
                  "info skip 3-1", "info skip 2-3 5", "skip delete 1-2 x", "skip disable", "skip enable 4-",
                  "info sk", "skip delete -1", "skip delete 9")
    got = assert_like_gdb([*commands, str(prog)], prog.parent)
    assert "No default function now." in got.stderr and "Invalid skip option: -xx" in got.stderr


def _mi_frames(command: list[str], prog: Path) -> list[str]:
    lines = ('-break-insert main\n-exec-run\n-interpreter-exec console "skip twice"\n'
             "-exec-step\n-exec-step\n-exec-step\n-gdb-exit\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([*command, "-nx", "-q", "-i=mi", str(prog)], input=lines, capture_output=True,
                         text=True, cwd=prog.parent, env=env, timeout=PATIENCE)
    stops = [line for line in run.stdout.splitlines() if line.startswith("*stopped")]
    return [re.sub(r'.*(func="\w+").*(line="\d+").*', r"\1 \2", line) for line in stops]


def test_mi_exec_step_honours_the_skip_list(prog: Path) -> None:
    gdb = gdb_path()
    assert gdb is not None
    expected = _mi_frames([gdb], prog)
    assert _mi_frames([sys.executable, "-m", "aliceserver"], prog) == expected
    assert expected[1:] == ['func="main" line="6"', 'func="square" line="3"', 'func="main" line="7"']


def test_dap_step_in_honours_a_skip_typed_in_the_debug_console(prog: Path) -> None:
    """The debug console's skip list is the engine's: DAP's stepIn goes over `twice`."""
    with DapClient.spawn(alice_argv()) as client:
        session = start_session(client, prog, function_breakpoints=["main"])
        said = client.call("evaluate", {"expression": "skip twice", "context": "repl"})["result"]
        assert said == "Function twice will be skipped when stepping.", said
        client.resume("stepIn", session.thread_id)
        top = client.stack_trace(session.thread_id, levels=1)[0]
        assert (top["name"], top["line"]) == ("main", 6), top  # not twice (x=3) at line 2
        client.resume("stepIn", session.thread_id)
        top = client.stack_trace(session.thread_id, levels=1)[0]
        assert top["name"].startswith("square"), top  # a function not skipped is entered


_INLINED = """\
volatile int sink;
static inline __attribute__((always_inline)) int bump(int x) {
  sink = x;
  return x + 1;
}
static inline __attribute__((always_inline)) int twice(int x) {
  sink = 2 * x;
  return 2 * x;
}
int main(void) {
  int a = bump(1);
  int b = twice(a);
  int c = bump(b);
  sink = a + b + c;
  return 0;
}
"""


@pytest.mark.parametrize(("skip", "entered"), [("skip bump", False), ("skip -rfu ^b", False), ("skip twice", True),
                                                ("skip -fu bump -fi inl.c", False)])
def test_step_goes_through_skipped_inlined_calls_like_gdb(tmp_path: Path, skip: str, entered: bool) -> None:
    """At -O2 the calls are inlined: a step at a skipped one's first instruction goes
    through its code to the next line, as gdb's inline_frame_is_marked_for_skip."""
    (tmp_path / "inl.c").write_text(_INLINED)
    subprocess.run(["gcc", "-g", "-O2", "-o", "inl", "inl.c"], cwd=tmp_path, check=True)
    commands = ex("break inl.c:12", "run", skip, "step", "step", "step", "step")
    got = assert_like_gdb([*commands, str(tmp_path / "inl")], tmp_path)
    assert ("bump (x=4)" in got.stdout) == entered


def test_step_over_skips_through_gdbserver_like_gdb(prog: Path) -> None:
    """The remote backend steps through the same plans: the skip list holds there too."""
    server = gdbserver_path()
    commands = ex(f"target remote | {server} - ./prog", "break main", "continue", "skip twice",
                  "skip file helper.c", "step", "step", "step", "kill")
    args = ["-batch", "-nx", *commands, str(prog)]
    expected, got = theirs(args, prog.parent), ours(args, prog.parent)

    def shown(text: str) -> list[str]:  # gdb reads the loader's files from the stub: we need not
        text = re.sub(r"(pid = |process )\d+", r"\1N", text)
        return [line for line in text.splitlines() if not line.startswith("Reading ")]

    assert shown(got.stdout + got.stderr) == shown(expected.stdout + expected.stderr)
    assert "square (x=6) at main.c:3" in got.stdout
