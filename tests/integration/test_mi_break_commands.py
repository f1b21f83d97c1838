"""gdb 13's -break-commands and the MI breakpoint commands beside it, against gdb in the same
run on printf_values.c: the records field by field, the errors, and the command lists run
at the stops an -exec-continue comes to."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_NOISE = re.compile(r',core="\d+"|0x0000[0-9a-f]+|/[^"]*/(?=printf_values\.c")|process \d+')
_WANTED = ("^", "=breakpoint", "*stopped", "~", "&")


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("printf_values")


def mi_records(program: Path, commands: Sequence[str], *, gdb: bool, run: bool = True,
               mi: str = "mi") -> list[str]:
    """The records after the program stopped at main (or before it runs), noise cut."""
    client = MiClient([f"-i={mi}", "-q", "-nx", str(program)] if gdb else [f"-i={mi}", "-q", str(program)],
                      cwd=program.parent, gdb=gdb)
    try:
        client.prompt()
        if run:
            client.ok("-break-insert main")
            client.ok("-exec-run")
            client.stopped()
            client.prompt()
        mark = len(client.lines)
        for command in commands:
            result, _ = client.command(command)
            if command.startswith("-exec-") and result.cls == "running":
                client.stopped()
                client.prompt()  # what the stop's breakpoint commands print comes before it
        return [_NOISE.sub("", re.sub(r"^\d+\^", "^", line)) for line in client.lines[mark:]
                if line.lstrip("0123456789").startswith(_WANTED) and not line.startswith("~\"Reading")]
    finally:
        client.close()


def test_break_commands_sets_the_list_and_runs_it_at_each_stop(prog: Path) -> None:
    commands = [
        "-break-insert accumulate",
        '-break-commands 2 "print step" "print total"',
        "-break-info 2",
        "-exec-continue",
        '-break-commands 2 "print step * 2" "print nosuch" "print 1"',
        "-break-info 2",
        "-exec-continue",
        '-break-commands 0x2 "silent" "print total"',
        "-exec-continue",
        "-break-commands 2",
        "-break-info 2",
        "-break-commands", '-break-commands 9 "print 1"', '-break-commands x "print 1"',
        '-break-commands 2x "print 1"',
    ]
    theirs = mi_records(prog, commands, gdb=True)
    got = mi_records(prog, commands, gdb=False)
    assert got == theirs
    assert '~"$1 = 10\\n"' in got and '~"$3 = 40\\n"' in got and '&"No symbol \\"nosuch\\" in current context.\\n"' in got
    assert "*stopped" in got  # `silent` first: gdb's MI still writes a bare stop record
    assert got[-4:] == ['^error,msg="USAGE: break-commands <BKPT> [<COMMAND> [<COMMAND>...]]"',
                        '^error,msg="breakpoint 9 not found."',
                        '^error,msg="breakpoint number argument \\"x\\" is not a number."',
                        '^error,msg="junk at the end of breakpoint number argument \\"2x\\"."']
