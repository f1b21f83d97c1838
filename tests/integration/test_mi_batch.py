"""gdb's batch mode and command files: `aliceserver -batch -ex run -ex bt PROG`, `-x FILE`,
`-iex`, `source FILE` (typed, or through MI), run side by side with real gdb 13.

Each command runs to its end: one that sets the program running returns at its stop (a
breakpoint, a signal, the exit), printed as the console prints it, before the next runs;
`-batch` exits with 1 when its last command failed, else 0.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb, ours
from tests.support.build import Builder, marker_line
from tests.support.mi_client import MiClient


@pytest.fixture(scope="module")
def programs(builder: Builder) -> dict[str, Path]:
    return {name: builder.build(name) for name in ("crash", "exitcode", "cli_prog")}


def test_run_then_backtrace_of_a_crash(programs: dict[str, Path]) -> None:
    crash = programs["crash"]
    done = ours(["-batch", "-nx", "-ex", "run", "-ex", "bt", str(crash)], crash.parent)
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done
    assert "Program received signal SIGSEGV, Segmentation fault." in lines, done.stdout
    stop = lines.index("Program received signal SIGSEGV, Segmentation fault.")
    line = marker_line("crash.c", "segv")
    assert "crash_segv () at " in lines[stop + 1] and lines[stop + 1].endswith(f"crash.c:{line}")
    assert lines[stop + 2].startswith(f"{line}\t")
    assert lines[stop + 3].startswith("#0  ") and "crash_segv ()" in lines[stop + 3]
    assert lines[stop + 4].startswith("#1  ") and " in main (" in lines[stop + 4]
    assert "(gdb)" not in done.stdout and "Starting program" not in done.stdout
    assert done.stderr == ""


def _scenarios(programs: dict[str, Path], tmp: Path) -> dict[str, list[str]]:
    exitcode, cli = str(programs["exitcode"]), str(programs["cli_prog"])
    script = tmp / "cmds.gdb"
    script.write_text(f"# a comment\n\nbreak exitcode.c:{marker_line('exitcode.c', 'return')}\n"
                      "run\nfoo\nbt\n")
    early = tmp / "early.gdb"
    early.write_text("echo one\\n\nrun\n")
    return {
        "breakpoint, bt, print": ["-ex", f"break exitcode.c:{marker_line('exitcode.c', 'return')}",
                                  "-ex", "run", "-ex", "bt", "-ex", "p code", "--args", exitcode, "3"],
        "exit code": ["-ex", "run", "--args", exitcode, "3"],
        "crash, bt": ["-ex", "run", "-ex", "bt", str(programs["crash"])],
        "error in the middle": ["-ex", "run", "-ex", "foo", "-ex", "echo end\\n", "--args", exitcode, "3"],
        "error last": ["-ex", "run", "-ex", "bt", "--args", exitcode, "3"],
        "output to the end": ["-ex", "run", cli],
        "continue, next, finish, kill": ["-ex", "break add", "-ex", "run", "-ex", "continue", "-ex", "next",
                                         "-ex", "finish", "-ex", "kill", "-ex", "p 1", cli],
        "command file and -ex in order": ["-ex", "echo before\\n", "-x", str(script), "-ex", "echo after\\n",
                                          "--args", exitcode, "4"],
        "error last in a command file": ["-x", str(script), "--args", exitcode, "4"],
        "-iex before the program": ["-iex", "echo iex\\n", "-ex", "echo ex\\n", "-ix", str(early), exitcode],
        "missing command file": ["-x", str(tmp / "nosuch.gdb"), "-ex", "echo after\\n", exitcode],
    }


SCENARIOS = ["breakpoint, bt, print", "exit code", "crash, bt", "error in the middle", "error last", "output to the end",
             "continue, next, finish, kill", "command file and -ex in order", "error last in a command file",
             "-iex before the program", "missing command file"]


@needs_gdb
@pytest.mark.parametrize("name", SCENARIOS)
def test_batch_like_gdb(programs: dict[str, Path], tmp_path: Path, name: str) -> None:
    assert_like_gdb(_scenarios(programs, tmp_path)[name], programs["exitcode"].parent)


def test_source_through_mi_waits_for_each_stop(programs: dict[str, Path], tmp_path: Path) -> None:
    exitcode = programs["exitcode"]
    script = tmp_path / "mi.gdb"
    script.write_text(f"break exitcode.c:{marker_line('exitcode.c', 'return')}\nrun\nbt\np code\n")
    mi = MiClient(["-i=mi", "-q", "-nx", "--args", str(exitcode), "5"], cwd=exitcode.parent)
    try:
        mi.prompt()
        result, seen = mi.command(f'-interpreter-exec console "source {script}"')
        assert result.cls == "done", seen
        stopped = next(i for i, line in enumerate(seen) if line.startswith("*stopped"))
        assert 'reason="breakpoint-hit"' in seen[stopped]
        after = seen[stopped + 1 :]
        assert any(line.startswith('~"#0  main (') for line in after), seen
        assert '~"$1 = 5\\n"' in after, seen
        assert seen.count("(gdb) ") == 1 and seen[-1] == "(gdb) "  # one answer, one prompt
    finally:
        assert mi.close() == 0
    mi.check()
