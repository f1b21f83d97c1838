"""Leaving while the program is alive, as gdb 13's quit_force (kill_or_detach): after
-gdb-exit's ^exit, a launched program is killed (=thread-exited, =thread-group-exited) and
an attached one detached (the same, then '[Inferior 1 (process N) detached]'); the console's
`quit` in MI does it after its confirmation, with no ^exit (and 'Detaching from program'
for a person); `-batch -p PID` ends with the detached line. Side by side with gdb."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, normalized, ours, theirs
from tests.support.build import Builder
from tests.support.longrun import running_longrun
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


@pytest.fixture
def longrun(builder: Builder) -> Iterator[subprocess.Popen[bytes]]:
    with running_longrun(builder) as proc:
        yield proc


def _after_exit(program: Path, start: list[str], leave: str, *, gdb: bool, pid: int | None = None) -> list[str]:
    """The records after `leave` (from its confirmation's answer on, for `quit`)."""
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb)
    try:
        mi.prompt()
        for command in start:
            mi.ok(command)
            if command == "-exec-run" or command.startswith("-target-attach"):  # (gdb's attach
                if not any(line.startswith("*stopped") for line in mi.lines):  # stop may come before its prompt)
                    mi.stopped()
        mark = len(mi.lines)
        mi.send(leave + "\n")
    finally:
        mi.close()
    lines = [line for line in mi.lines[mark:] if line != "(gdb) "]
    answered = [index for index, line in enumerate(lines) if "[answered Y" in line]
    kept = lines[answered[0] + 1 :] if answered else lines
    return [normalized(line if pid is None else line.replace(str(pid), "N")) for line in kept]


def test_gdb_exit_kills_a_launched_program_like_gdb(builder: Builder) -> None:
    program = builder.build("longrun")
    start = ["-break-insert tick", "-exec-run"]
    got = _after_exit(program, start, "-gdb-exit", gdb=False)
    assert got == _after_exit(program, start, "-gdb-exit", gdb=True)
    assert got == ["^exit", '=thread-exited,id="1",group-id="i1"', '=thread-group-exited,id="i1"']


def test_quit_kills_a_launched_program_like_gdb(builder: Builder) -> None:
    program = builder.build("longrun")
    start = ["-break-insert tick", "-exec-run"]
    got = _after_exit(program, start, "quit", gdb=False)
    assert got == _after_exit(program, start, "quit", gdb=True)
    assert got == ['=thread-exited,id="1",group-id="i1"', '=thread-group-exited,id="i1"']  # no ^exit


@pytest.mark.parametrize("leave", ["-gdb-exit", "quit", "detach"])
def test_leaving_detaches_an_attached_program_like_gdb(
    builder: Builder, longrun: subprocess.Popen[bytes], leave: str
) -> None:
    program = builder.build("longrun")
    start = [f"-target-attach {longrun.pid}"]
    got = _after_exit(program, start, leave, gdb=False, pid=longrun.pid)
    expected = _after_exit(program, start, leave, gdb=True, pid=longrun.pid)
    # (=library-unloaded after detach alone, in the attach's order: test_detach_libraries)
    unloaded = [line for line in got if line.startswith("=library-unloaded")]
    assert sorted(unloaded) == sorted(line for line in expected if line.startswith("=library-unloaded"))
    assert bool(unloaded) == (leave == "detach")  # (quit's detach leaves the libraries)
    assert [line for line in got if line not in unloaded] == [
        line for line in expected if not line.startswith("=library-unloaded")]
    assert '=thread-group-exited,id="i1"' in got
    assert got[got.index('=thread-group-exited,id="i1"') + 1] == '~"[Inferior 1 (process N) detached]\\n"'
    assert longrun.poll() is None  # still running, untraced


def test_batch_attach_ends_detached_like_gdb(builder: Builder, longrun: subprocess.Popen[bytes]) -> None:
    program = builder.build("longrun")
    args = ["-batch", "-nx", "-p", str(longrun.pid), "-ex", "info inferiors", str(program)]
    expected, got = theirs(args, program.parent), ours(args, program.parent)
    last = normalized(expected.stdout).splitlines()[-1]
    assert last == "[Inferior 1 (process N) detached]"
    assert normalized(got.stdout).splitlines()[-1] == last
