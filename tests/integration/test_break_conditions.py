"""Breakpoint conditions checked where they apply, against gdb 13 on one program with two
overloads of one name (cond_locations.cpp): gdb parses a condition in the block of each
location, refuses one that names nothing known at any of them (a new breakpoint is not
made, an old condition is kept), disables the locations where it fails unless none is
left (or it is forced), and enables them again when the condition is cleared or fixed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder, find_cxx
from tests.support.jump_patches import jump_patches as jump_patches  # the fixture
from tests.support.mi_client import MiClient

# Each scenario with jump patches on and off: the same stops either way.
pytestmark = [needs_gdb, pytest.mark.timeout(180), pytest.mark.usefixtures("jump_patches")]


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    if find_cxx() is None:
        pytest.skip("g++ not installed")
    return MoreBuilder(builder.cache_dir).build_cpp("cond_locations")


def test_console_conditions_per_location_like_gdb(prog: Path) -> None:
    got = assert_like_gdb(ex(
        "break pick if nosuch", "break main", "condition 1 sink == 0", "condition 1 nosuch",
        "break pick if count == 4", "condition -force 1 nosuch", "info breakpoints", "condition 1",
        "run", "continue", "condition 2 ratio > 2", "info breakpoints", "run",
        "condition -force 2 nosuch", "condition -foo 2 x", "condition -force", "continue",
    ) + [str(prog)], prog.parent)
    assert got.stderr.startswith('No symbol "nosuch" in current context.\n')  # no breakpoint made
    assert "2.2                         N*  " in got.stdout
    assert "\nBreakpoint 2.1, pick (count=4)" in got.stdout  # the int overload only, at 4
    assert "Breakpoint 2's condition is now valid at location 2, enabling.\n" in got.stdout


_NOISE = re.compile(r',core="\d+"|0x0000[0-9a-f]+|/[^"]*/(?=cond_locations\.cpp")|process \d+')


def _mi_records(program: Path, commands: Sequence[str], *, gdb: bool) -> list[str]:
    client = MiClient(["-i=mi", "-q", "-nx", str(program)] if gdb else ["-i=mi", "-q", str(program)],
                      cwd=program.parent, gdb=gdb)
    try:
        client.prompt()
        mark = len(client.lines)
        for command in commands:
            result, _ = client.command(command)
            if command.startswith("-exec-") and result.cls == "running":
                client.stopped()
        wanted = ("^", "=breakpoint", "*stopped", "~", "&")
        return [_NOISE.sub("", re.sub(r"^\d+\^", "^", line)) for line in client.lines[mark:]
                if line.lstrip("0123456789").startswith(wanted) and "libthread_db" not in line]
    finally:
        client.close()


def test_mi_conditions_per_location_like_gdb(prog: Path) -> None:
    commands = [
        "-break-insert -c nosuch pick", '-dprintf-insert -c nosuch pick "x"',
        "-break-insert -c count==4 pick", "-break-insert -c nosuch --force-condition main",
        "-break-condition 1 nosuch", "-break-info 1", "-break-condition --force 1 nosuch", "-break-info 1",
        "-break-condition 1", "-break-condition 2 count", "-break-condition", "-break-condition --force",
        "-break-condition 1 count == 4", "-break-insert -d main", "-break-info 3", "-exec-run",
    ]
    theirs = _mi_records(prog, commands, gdb=True)
    got = _mi_records(prog, commands, gdb=False)
    assert got == theirs
    assert got[0] == '^error,msg="No symbol \\"nosuch\\" in current context."'
    assert '^error,msg="-break-condition: Missing the <number> argument"' in got
    assert any('bkptno="1",locno="1"' in line and 'value="4"' in line for line in got)
