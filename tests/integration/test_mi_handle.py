"""`handle SIGNAL ACTIONS` and `info signals` in the gdb-like console, against gdb 13: a
signal that does not stop but prints says so on the console, and the table has gdb's
columns."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb, ours
from tests.support.build import Builder, marker_line
from tests.support.mi_client import MiClient

ROW = "SIGUSR1       No\tYes\tYes\t\tUser defined signal 1"


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("signals")


def test_nostop_print_says_so_when_the_signal_comes(prog: Path) -> None:
    done = ours(["-batch", "-nx", "-ex", "handle SIGUSR1 nostop print", "-ex", "info signals SIGUSR1",
                 "-ex", "run", str(prog)], prog.parent)
    lines = done.stdout.splitlines()
    assert lines[:2] == ["Signal        Stop\tPrint\tPass to program\tDescription", ROW], done
    received = lines.index("Program received signal SIGUSR1, User defined signal 1.")
    assert lines[received - 1] == "" and lines[received + 1] == "handled=10"  # passed on, not stopped
    assert lines[-1].endswith("exited normally]")


def test_handle_through_mi(prog: Path) -> None:
    mi = MiClient(["-i=mi", "-q", "-nx", str(prog)], cwd=prog.parent)
    try:
        mi.prompt()
        _, seen = mi.command('-interpreter-exec console "handle SIGUSR1 nostop print"')
        assert seen[:2] == ['~"Signal        Stop\\tPrint\\tPass to program\\tDescription\\n"',
                            '~"' + ROW.replace("\t", "\\t") + '\\n"'], seen
        mi.ok("-exec-run")
        lines = mi.read_until(lambda line: line.startswith("*stopped"))
        assert '~"Program received signal SIGUSR1, User defined signal 1.\\n"' in lines
        assert lines[-1] == '*stopped,reason="exited-normally"'  # the only stop
        mi.prompt()
    finally:
        assert mi.close() == 0
    mi.check(["handled=10"])


@needs_gdb
@pytest.mark.parametrize("commands", [
    ["handle SIGUSR1 nostop noprint", "info signals SIGUSR1", "run"],
    ["handle SIGUSR1 stop", "info signals SIGUSR1", "handle SIGUSR1 nopass", "info signals SIGUSR1",
     "handle SIGUSR1 SIGUSR2 nost", "info signals SIGUSR2", "info signals 14", "info signals 10"],
    ["handle SIGINT nostop", "info signals SIGINT", "handle SIGALRM SIGUSR1 stop print", "info signals SIGALRM"],
    ["handle SIGUSR1 nostop print", f"break signals.c:{marker_line('signals.c', 'raise')}", "run", "next", "next"],
    ["handle SIGFOO stop", "handle SIGUSR1 bogus", "handle 16 stop", "handle sigusr1 stop", "handle"],
])  # fmt: skip
def test_handle_like_gdb(prog: Path, commands: list[str]) -> None:
    assert_like_gdb([word for command in commands for word in ("-ex", command)] + [str(prog)], prog.parent)


def test_nostop_print_message_comes_before_what_the_program_writes_next(builder: Builder) -> None:
    # gdb writes the message before it resumes the program: the program's next line (a
    # write right after the signal, 40 times) never comes before it, nor the exit.
    prog = builder.build("signal_writes")
    message = "Program received signal SIGUSR1, User defined signal 1."
    for _ in range(3):
        args = ["-batch", "-nx", "-ex", "handle SIGUSR1 nostop print", "-ex", "run", str(prog)]
        done = ours(args, prog.parent)
        told = [line for line in done.stdout.splitlines() if line]
        assert told[:-1] == [line for i in range(40) for line in (message, f"after {i}")], done
        assert told[-1].endswith("exited normally]"), done
