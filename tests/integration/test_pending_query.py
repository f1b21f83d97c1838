"""gdb 13's question before a pending breakpoint (breakpoint.c create_breakpoint): a
console `break` whose location names no code prints the error on stderr, then, under
`set breakpoint pending auto`, nquery's "Make breakpoint pending on future shared library
load? (y or [n])" answered N where no person types (-batch, a pipe, MI's pipe); `on` makes
it pending after the error, `off` is the error alone, `set confirm off` answers N without
the question; -break-insert never asks and only its -f makes one pending. `dprintf` and
`trace` ask it with their kind's name ("Make dprintf pending..."); a dprintf that has never
had a place shows its arguments after its location (`nosuch,"x\\n"`) and no printf line
yet (gdb makes its command list once it is placed)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return builder.build("locations")


def test_batch_break_asks_then_answers_no(program: Path) -> None:
    commands = ["break nosuch", "break locations.c:9999", "break nosuch.c:3", "set breakpoint pending on",
                "break nosuch2", "set breakpoint pending off", "break nosuch3", "set breakpoint pending auto",
                "set confirm off", "break nosuch4", "tbreak nosuch5", "info breakpoints"]  # fmt: skip
    got = assert_like_gdb([*ex(*commands), str(program)], program.parent)
    assert "Make breakpoint pending on future shared library load? (y or [n]) [answered N" in got.stdout


def _transcript(program: Path, commands: list[str], *, gdb: bool, file: bool = True) -> list[str]:
    client = MiClient(["-i=mi", "-q", "-nx", *([str(program)] if file else [])], cwd=program.parent, gdb=gdb)
    try:
        client.prompt()
        found = []
        for command in commands:
            _, seen = client.command(command, token=False)
            found += [re.sub(r'thread-groups=\["i1"\],', "", line) for line in seen]
        return found
    finally:
        client.close()


def test_mi_console_break_asks_and_break_insert_does_not(program: Path) -> None:
    commands = ['-interpreter-exec console "break nosuch"', "-break-insert nosuch", "break nosuch",
                "-gdb-set breakpoint pending on", '-interpreter-exec console "break nosuch2"', "-break-insert nosuch3",
                "-break-insert -f nosuch4", "-break-list", "info breakpoints"]  # fmt: skip
    got = _transcript(program, commands, gdb=False)
    assert got == _transcript(program, commands, gdb=True)
    assert any(line.startswith('~"Make breakpoint pending') for line in got)


def test_without_a_file_no_symbol_table_then_the_question(program: Path) -> None:
    """No `file`: gdb's 'No symbol table is loaded.' is the not-found error that asks."""
    commands = ["break nosuch", "set breakpoint pending on", "break nosuch", "break locations.c:3", "info breakpoints"]
    got = assert_like_gdb(ex(*commands), program.parent)
    assert 'No symbol table is loaded.  Use the "file" command.' in got.stderr
    mi = ['-break-insert nosuch', '-interpreter-exec console "break nosuch"', "-break-insert -f nosuch"]
    assert _transcript(program, mi, gdb=False, file=False) == _transcript(program, mi, gdb=True, file=False)


def test_dprintf_and_trace_ask_like_gdb(program: Path) -> None:
    commands = ['dprintf nosuch,"x\\n"', "trace nosuch", "set breakpoint pending on", 'dprintf nosuch,"y %d\\n",5',
                "trace nosuch", "info breakpoints", "set breakpoint pending off", 'dprintf nosuch,"z\\n"']  # fmt: skip
    got = assert_like_gdb([*ex(*commands), str(program)], program.parent)
    assert "Make dprintf pending on future shared library load? (y or [n])" in got.stdout


def test_mi_pending_dprintf_like_gdb(program: Path) -> None:
    commands = ['-dprintf-insert -f nosuch "x\\n"', '-dprintf-insert -f nosuch "y %d\\n" 5', "-break-list",
                '-interpreter-exec console "info breakpoints"']  # fmt: skip
    got = _transcript(program, commands, gdb=False)
    assert got == _transcript(program, commands, gdb=True)
    assert not any("script=" in line for line in got)
