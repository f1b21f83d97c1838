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
from tests.support.build_more import MoreBuilder
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_NOISE = re.compile(r',core="\d+"|0x0000[0-9a-f]+|/[^"]*/(?=\w+\.cp?p?")|process \d+')
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
            if not command.startswith("-exec-"):  # read raw: MI 2's multi-location form breaks MI's grammar
                client.send(command)
                client.prompt()
                continue
            result, _ = client.command(command)
            if result.cls == "running":
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


@pytest.fixture(scope="module")
def overloads(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("infcall_cpp", ("-g", "-O0", "-no-pie"))


@pytest.mark.parametrize("mi", ["mi2", "mi3"])
def test_multi_location_records_and_their_mi2_fix(overloads: Path, mi: str) -> None:
    """`pick` has two overloads: MI 2 writes the locations after the breakpoint's tuple until
    -fix-multi-location-breakpoint-output, MI 3 in its locations list; the parent has no
    thread-groups of its own."""
    commands = ["-break-insert pick", "-break-list",
                "-fix-multi-location-breakpoint-output", "-break-insert pick", "-break-list",
                "-break-passcount", "-break-passcount 1", "-break-passcount 1 2", "-break-passcount x 2"]
    theirs = mi_records(overloads, commands, gdb=True, run=False, mi=mi)
    got = mi_records(overloads, commands, gdb=False, run=False, mi=mi)
    assert got == theirs
    assert got[-2:] == ['^error,msg="Could not find tracepoint 1"', '^error,msg="Could not find tracepoint 0"']


@pytest.mark.parametrize("mi", ["mi", "mi2", "mi3", "mi4"])
def test_script_field_is_a_list_from_mi4_or_after_its_fix(prog: Path, mi: str) -> None:
    """gdb 13's `-i=mi` is MI 4, which writes a breakpoint's script as a list; MI 2 and 3
    write a tuple of bare strings until -fix-breakpoint-script-output."""
    commands = ["-break-insert accumulate", '-break-commands 1 "silent" "print step"', "-break-info 1",
                "-fix-breakpoint-script-output", '-break-commands 1 "print total"', "-break-info 1"]
    theirs = mi_records(prog, commands, gdb=True, run=False, mi=mi)
    got = mi_records(prog, commands, gdb=False, run=False, mi=mi)
    assert got == theirs
    tuple_form = ',script={"silent","print step"},' in got[2]
    assert tuple_form == (mi in ("mi2", "mi3")) and ',script=["print total"],' in got[-1]


@pytest.mark.parametrize("mi", ["mi", "mi3"])
def test_cli_commands_reads_its_list_from_the_following_lines(prog: Path, mi: str) -> None:
    """`commands` sent to MI as a console command takes the lines that follow up to `end`
    (each read after a `~">"` prompt) and announces the list in =breakpoint-modified."""
    commands = ["-break-insert accumulate", "commands\nsilent\nif step > 1\nprint step\nend\nend", "-break-info",
                "commands 7"]
    theirs = mi_records(prog, commands, gdb=True, run=False, mi=mi)
    got = mi_records(prog, commands, gdb=False, run=False, mi=mi)
    assert got == theirs
    assert got[1:7] == ['&"commands\\n"', '~">"', '~">"', '~" >"', '~" >"', '~">"']
    assert ',script=' in got[7] and got[7].startswith("=breakpoint-modified") and got[8] == "^done"
    assert got[-2:] == ['~"No breakpoint number 7.\\n"', "^done"]
