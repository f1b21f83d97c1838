"""MI: a watchpoint on a local ends with its frame exactly as gdb 13 reports it: the
watchpoint shown dying (=breakpoint-modified, disp "dstp"), the location on the console,
*stopped with reason="watchpoint-scope",wpnum (before a finish's own reason), then
=breakpoint-deleted. The same commands run through gdb and through us, and the records
from the last command on are compared."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

import pytest

from tests.support.batch import assert_like_gdb
from tests.support.build import Builder, marker_line
from tests.support.gdb import gdb_path
from tests.support.mi_client import MiClient

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
]

SOURCE = "watch_scope.c"
_NOISE = re.compile(r'thread-groups=\["i1"\],|,core="\d+"')  # ours omits the first; the CPU varies


def last_command_records(program: Path, commands: Sequence[str], *, gdb: bool) -> list[str]:
    client = MiClient(["-i=mi", "-q", "-nx", str(program)] if gdb else ["-i=mi", "-q", str(program)],
                      cwd=program.parent, gdb=gdb)
    try:
        client.prompt()
        for command in commands[:-1]:
            client.ok(command)
            if command.startswith("-exec-"):
                client.stopped()
        mark = len(client.lines)
        client.ok(commands[-1])
        client.read_until(lambda line: line.startswith("=breakpoint-deleted") or line.startswith("*stopped,reason=\"exited"))
        client.prompt()
        wanted = ("=breakpoint-modified", "=breakpoint-deleted", "*stopped", "~")
        return [_NOISE.sub("", line) for line in client.lines[mark:] if line.startswith(wanted)]
    finally:
        client.close()


def compare(builder: Builder, commands: Sequence[str]) -> list[str]:
    program = builder.build("watch_scope")
    theirs = last_command_records(program, commands, gdb=True)
    ours = last_command_records(program, commands, gdb=False)
    assert ours == theirs
    return ours


def test_continue_out_of_the_frame(builder: Builder) -> None:
    at = marker_line(SOURCE, "acc")
    commands = [f"-break-insert {SOURCE}:{at}", "-exec-run", "-break-watch acc", "-break-delete 1",
                "-exec-continue", "-exec-continue", "-exec-continue", "-exec-continue"]
    records = compare(builder, commands)
    stopped = next(line for line in records if line.startswith("*stopped"))
    assert stopped.startswith('*stopped,reason="watchpoint-scope",wpnum="2",frame={')
    assert 'func="main",args=[]' in stopped and f'line="{marker_line(SOURCE, "call")}"' in stopped
    assert records[0].startswith('=breakpoint-modified,bkpt={number="2",type="hw watchpoint",disp="dstp"')
    assert records[-1] == '=breakpoint-deleted,id="2"'


def test_finish_out_of_the_frame(builder: Builder) -> None:
    at = marker_line(SOURCE, "return")
    records = compare(builder, [f"-break-insert {SOURCE}:{at}", "-exec-run", "-break-watch acc", "-exec-finish"])
    stopped = next(line for line in records if line.startswith("*stopped"))
    assert stopped.startswith('*stopped,reason="watchpoint-scope",wpnum="2",reason="function-finished",')
    assert 'return-value="6"' in stopped


def test_console_says_why_as_gdb(builder: Builder) -> None:
    """gdb's CLI prints the reason; its MI console stream (above) does not."""
    program = builder.build("watch_scope")
    at = marker_line(SOURCE, "acc")
    done = assert_like_gdb(["-ex", f"break {SOURCE}:{at}", "-ex", "run", "-ex", "watch acc", "-ex", "delete 1",
                            *["-ex", "continue"] * 4, "-ex", "info breakpoints", str(program)], program.parent)
    assert "\nWatchpoint 2 deleted because the program has left the block in\nwhich its expression is valid.\n" in done.stdout


def test_watch_location_has_no_scope(builder: Builder) -> None:
    """`watch -location acc` watches the memory, not the frame: it goes on firing in the
    next call of compute (acc's slot again), as gdb's does."""
    program = builder.build("watch_scope")
    at = marker_line(SOURCE, "acc")
    done = assert_like_gdb(["-ex", f"break {SOURCE}:{at}", "-ex", "run", "-ex", "watch -l acc", "-ex", "delete 1",
                            *["-ex", "continue"] * 4, str(program)], program.parent)
    assert "Hardware watchpoint 2: -location acc" in done.stdout and "deleted because" not in done.stdout


def _watch_records(program: Path, *, gdb: bool) -> list[str]:
    """A global's watchpoint set at a breakpoint, triggered twice, then -break-list: the
    records each trigger sends and the table."""
    client = MiClient(["-i=mi", "-q", "-nx", str(program)] if gdb else ["-i=mi", "-q", str(program)],
                      cwd=program.parent, gdb=gdb)
    try:
        client.prompt()
        client.ok("-break-insert compute")
        client.ok("-exec-run")
        client.stopped()
        client.ok("-break-watch global_total")
        client.ok("-break-delete 1")
        mark = len(client.lines)
        for _ in range(2):
            client.ok("-exec-continue")
            client.stopped()
        client.ok("-break-list")
        wanted = ("=breakpoint-modified", "*stopped", "^done")
        return [re.sub(r',core="\d+"', "", line) for line in client.lines[mark:] if line.startswith(wanted)]
    finally:
        client.close()


def test_a_watchpoint_trigger_tells_its_count_and_its_location(builder: Builder) -> None:
    """gdb notifies each trigger (=breakpoint-modified, times N) before *stopped, and a
    watchpoint set in the running program shows its thread group in the table."""
    program = builder.build("watch_scope")
    theirs, ours = _watch_records(program, gdb=True), _watch_records(program, gdb=False)
    assert ours == theirs
    assert sum('type="hw watchpoint"' in line and line.startswith("=breakpoint-modified") for line in ours) == 2
