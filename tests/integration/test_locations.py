"""gdb's location syntax in break, tbreak and -break-insert (issue 15): explicit locations
(-source/-function/-label/-line, -qualified), FILE:FUNCTION, FUNCTION:LABEL, quoted files,
offsets from the default line, the keywords after a location, and gdb's errors for each,
compared with gdb 13 on the same program."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import normalized, ours, theirs
from tests.support.build import Builder, marker_line
from tests.support.gdb import gdb_path
from tests.support.mi_client import MiClient

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
]


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return builder.build("locations")


def test_console_locations_like_gdb(program: Path, builder: Builder) -> None:
    loop = marker_line(builder.source("locations"), "loop")
    errors = [
        "break -source locations.c", "break -source", "break -function main foo", "break -30",
        "break main thread 99", "break main task 1", "break main foo", "break -source nosuch.c -line 3",
        "break -label again", "break locations.c:nosuch", "break nosuch.c:main", "break -foo main",
        f"break -line {loop} foo", f"break locations.c:{loop} foo", "break nosuch:again",
        "break -function main -label nosuch", "break twice:nosuch", "break 999", "break main thread",
    ]  # fmt: skip
    runs = [  # each binds distinct places (gdb -batch notes no breakpoints at the same pc)
        ["break -qualified main", f"break -source locations.c -line {loop}", "break -function twice -label again",
         "break -qualified -function callme", "tbreak locations.c:twice", "break +2", *errors],
        [f"break -line {loop}", "break twice:again", "break callme if i < 4"],
        [f'break "locations.c":{loop}', "break locations.c:twice:again"],
        [f"break -li {loop}"], [f"break -line {loop} if i < 4"],
    ]  # fmt: skip
    for commands in runs:
        args = ["-batch", "-nx", *[word for command in commands for word in ("-ex", command)], str(program)]
        expected, got = theirs(args, program.parent), ours(args, program.parent)
        assert normalized(got.stdout) == normalized(expected.stdout)
        assert normalized(got.stderr) == normalized(expected.stderr)


def _answers(program: Path, commands: list[str], *, gdb: bool) -> list[str]:
    client = MiClient(["-i=mi", "-q", "-nx", str(program)] if gdb else ["-i=mi", "-q", str(program)],
                      cwd=program.parent, gdb=gdb)
    try:
        client.prompt()
        found = []
        for command in commands:
            _, seen = client.command(command)
            record = next(line for line in seen if re.match(r"\d*\^", line))
            found.append(re.sub(r'^\d+|thread-groups=\["i1"\],', "", record))
        return found
    finally:
        client.close()


def test_mi_break_insert_locations_like_gdb(program: Path, builder: Builder) -> None:
    loop = marker_line(builder.source("locations"), "loop")
    commands = [
        "-break-insert -t locations.c:twice", '-break-insert "callme if i < 4"', "-break-insert callme if i < 4",
        '-break-insert "main thread 99"', '-break-insert "main foo"',
        f"-break-insert --source locations.c --line {loop}", "-break-insert --source locations.c",
        "-break-insert --qualified main", "-break-insert --qualified --function callme",
        "-break-insert locations.c:nosuch", f"-break-insert --source locations.c --line {loop} main",
        "-break-insert --label again", "-break-insert --source locations.c --function main --label foobar",
        "-break-insert --source locations.c --function foobar", "-break-insert --function nosuch",
    ]  # fmt: skip
    assert _answers(program, commands, gdb=False) == _answers(program, commands, gdb=True)
