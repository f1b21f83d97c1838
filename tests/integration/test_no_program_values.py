"""Expressions that need no program, side by side with gdb 13: with no file loaded gdb
still evaluates literals, its own types, the value history and convenience variables
(string literals are arrays in gdb's memory); only a symbol looked up, a register, or a
value that must live in the program's memory has its error. The same before `run` and
after the program exited."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder
from tests.support.mi_client import MiClient

# What gdb.base/printcmds.exp and gdb.mi/mi-multi-commands.exp ask before any `file`.
# (Not here: sizes of long and pointers, which gdb takes from its i386 default then.)
COMMANDS = [
    'print "abc"', "print 1 + 2", "print sizeof(int)", "print $_", "output 5", "print/c 65", "print 'a'",
    "ptype int", "whatis 1.5", "print x", 'set $a = "FIRST COMMAND"', "print $a", "print $1", "p $$2",
    'print "abc"[1]', "print sizeof(\"abc\")", 'print "a" "b"', "ptype struct foo", "print sizeof(struct foo)",
    "ptype foo", "print 1 ? 2 : x", "print foo(1)", "print $pc", "print $eax", "print $rip", "print $_exitcode",
    "print $_thread", "ptype $_", "print *(int*)0", "print *\"abc\"", 'print (long)&"abc"', "print/x -1",
    "print $nonexistent + 1", "print (char)65", "whatis (char)1", "output \"abc\"",
]


@pytest.fixture(scope="module")
def exitcode(builder: Builder) -> Path:
    return builder.build("exitcode")


@needs_gdb
def test_values_with_no_file_like_gdb(tmp_path: Path) -> None:
    assert_like_gdb(ex(*COMMANDS), tmp_path)


@needs_gdb
@pytest.mark.parametrize("when", ["before run", "after the exit"])
def test_values_with_a_file_like_gdb(exitcode: Path, when: str) -> None:
    start = ["-ex", "run"] if when == "after the exit" else []
    assert_like_gdb([*start, *ex(*COMMANDS[:10]), str(exitcode)], exitcode.parent)


def _answers(gdb: bool, cwd: Path) -> list[str]:
    """mi-multi-commands.exp's exchange: a convenience variable set by a CLI command
    given on the MI channel, read by -data-evaluate-expression (blanks before a command
    are skipped, not after a token)."""
    mi = MiClient(["-i=mi", "-q", "-nx"], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        answers = []
        for command in ['set $a = "FIRST COMMAND"', "-data-evaluate-expression $a", "-data-evaluate-expression 6*7",
                        '-interpreter-exec console "print \\"abc\\""', "-data-evaluate-expression x",
                        " -data-evaluate-expression $a", "\t  print $a", "12 -data-evaluate-expression $a"]:
            _, seen = mi.command(command, token=False)
            answers.extend(seen)
    finally:
        mi.close()
    if not gdb:
        mi.check()
    return answers


@needs_gdb
def test_mi_values_with_no_file_like_gdb(tmp_path: Path) -> None:
    expected = _answers(True, tmp_path)
    assert '^done,value="\\"FIRST COMMAND\\""' in expected  # the oracle says what the test asks
    assert _answers(False, tmp_path) == expected
