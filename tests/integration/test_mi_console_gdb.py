"""The gdb-like console against gdb 13 on one program (console_gdb.c): where the program's
output goes, gdb's signal words and defaults, the stop line after a step that changed
function, and the errors of `info` commands with no program."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb, ours
from tests.support.build import Builder, marker_line
from tests.support.mi_client import MiClient


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("console_gdb")


def test_program_writes_to_our_stdout_and_stderr(prog: Path) -> None:
    # gdb's inferior inherits its fds: `gdb -batch -ex run ./prog 2>err.txt` puts the
    # program's errors in err.txt, not among gdb's lines.
    done = ours(["-batch", "-nx", "-ex", "run", str(prog)], prog.parent)
    assert done.stderr == "to stderr\n", done
    assert done.stdout.splitlines()[0] == "to stdout" and "to stderr" not in done.stdout


def test_mi_on_pipes_leaves_the_program_its_stderr(prog: Path) -> None:
    mi = MiClient(["-i=mi", "-q", "-nx", str(prog)], cwd=prog.parent)
    try:
        mi.prompt()
        mi.ok("-exec-run")
        lines = mi.read_until(lambda line: line.startswith("*stopped"))
        assert lines[-1] == '*stopped,reason="exited-normally"'
        assert "to stdout" in lines and "to stderr" not in lines, lines
        mi.prompt()
    finally:
        assert mi.close() == 0
    assert mi.stderr == b"to stderr\n"
    mi.check(["to stdout", "got 2"])


def test_sigchld_is_described_as_gdb_does(prog: Path) -> None:
    done = ours(["-batch", "-nx", *ex("handle SIGCHLD print", "run"), "--args", str(prog), "c"], prog.parent)
    assert "Program received signal SIGCHLD, Child status changed." in done.stdout.splitlines(), done


def test_sigtrap_is_not_passed_on(prog: Path) -> None:
    done = ours(["-batch", "-nx", *ex("info signals SIGTRAP", "run", "continue"), "--args", str(prog), "t"],
                prog.parent)
    lines = done.stdout.splitlines()
    assert lines[1] == "SIGTRAP       Yes\tYes\tNo\t\tTrace/breakpoint trap", done
    received = lines.index("Program received signal SIGTRAP, Trace/breakpoint trap.")
    assert lines[received + 2].startswith(f"{marker_line('console_gdb.c', 'call')}\t")  # past the int3
    assert lines[-2:] == ["got 4", lines[-1]] and lines[-1].endswith("exited normally]"), done


def test_stepi_back_into_the_caller_shows_the_frame(prog: Path) -> None:
    done = ours(["-batch", "-nx", *ex("break twice", "run", *["stepi"] * 8), str(prog)], prog.parent)
    lines = done.stdout.splitlines()
    back = next(i for i, line in enumerate(lines) if " in main (argc=1, argv=0x" in line)  # mid-line
    call = marker_line("console_gdb.c", "call")
    assert lines[back].startswith("0x") and lines[back].endswith(f"console_gdb.c:{call}"), done
    assert lines[back + 1].startswith(f"{call}\t"), done


def test_info_without_a_program_says_what_gdb_says(prog: Path) -> None:
    done = ours(["-batch", "-nx", *ex("info locals", "info args", "info frame", "info registers", "info registers rip"),
                 str(prog)], prog.parent)
    assert done.stderr.splitlines() == ["No frame selected.", "No frame selected.", "No stack.",
                                        "The program has no registers now.", "The program has no registers now."]


TWICE = f"break console_gdb.c:{marker_line('console_gdb.c', 'twice')}"
RETURN = f"break console_gdb.c:{marker_line('console_gdb.c', 'twice_return')}"
CALL = f"break console_gdb.c:{marker_line('console_gdb.c', 'call')}"
SCENARIOS = {
    "output streams": (ex("run"), ()),
    "SIGCHLD printed": (ex("handle SIGCHLD print", "run"), ("c",)),
    "SIGTRAP stops and is not passed": (ex("run", "continue"), ("t",)),
    "signal defaults": (ex(*(f"info signals {name}" for name in (
        "SIGTRAP", "SIGINT", "SIGCHLD", "SIGALRM", "SIGSEGV", "SIGFPE", "SIGTSTP", "SIGWINCH", "SIGPWR", "SIG34"))), ()),
    "stepi back into main": (ex(TWICE, "run", *["stepi"] * 8), ()),
    "nexti back into main": (ex(TWICE, "run", *["nexti"] * 8), ()),
    "stepi 5": (ex(TWICE, "run", "stepi 5", "stepi"), ()),
    "stepi into the call": (ex(CALL, "run", *["stepi"] * 5), ()),
    "next out": (ex(RETURN, "run", "next", "next"), ()),
    "step out": (ex(RETURN, "run", "step", "step"), ()),
    "until out": (ex(RETURN, "run", "until", "until"), ()),
    "finish": (ex(TWICE, "run", "finish", "next"), ()),
    "info with no program": (ex("info locals", "info args", "info frame", "info registers", "info all-registers"), ()),
}


@needs_gdb
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_console_like_gdb(prog: Path, name: str) -> None:
    commands, args = SCENARIOS[name]
    assert_like_gdb([*commands, "--args", str(prog), *args], prog.parent)
