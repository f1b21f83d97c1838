"""What gdb 13 prints around threads, in -batch and in MI's console stream, on a program
whose one worker thread stops in turn at a breakpoint, a watchpoint and a signal
(thread_events.c): [New Thread ...] and [Thread ... exited], [Switching to Thread ...]
when the stop's thread is not the last one shown, and `Thread N "name" hit` / `Thread N
"name" received signal` once the program has had a second thread."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder, marker_line
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(180)]
SOURCE = "thread_events.c"


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("thread_events")


def _stops(*first: str) -> list[str]:
    return ex(*first, f"break {SOURCE}:{marker_line(SOURCE, 'worker')}",
              f"break {SOURCE}:{marker_line(SOURCE, 'joined')}", "run", "watch shared", "c", "c", "c", "c")


def _shown(done: subprocess.CompletedProcess[str]) -> str:
    # The signal stops in libc: its frame's arguments and source path are not this test's.
    text = "\n".join(line for line in normalized(done.stdout).splitlines() if "pthread_kill" not in line)
    return re.sub(r"LWP \d+", "LWP N", text)


def _both(prog: Path, args: list[str]) -> tuple[str, str]:
    args = ["-batch", "-nx", *args, str(prog)]
    return _shown(ours(args, prog.parent)), _shown(theirs(args, prog.parent))


def test_stops_in_a_thread_as_gdb(prog: Path) -> None:
    got, expected = _both(prog, _stops())
    assert got == expected
    assert re.search(r'^\[New Thread 0x[0-9a-f]+ \(LWP N\)\]\n\[Switching to Thread 0x[0-9a-f]+ \(LWP N\)\]\n\n'
                     r'Thread 2 "thread_events" hit Breakpoint 1, worker', got, re.M), got
    assert '\nThread 2 "thread_events" hit Hardware watchpoint 3: shared\n' in got
    assert '\nThread 2 "thread_events" received signal SIGUSR1, User defined signal 1.\n' in got
    assert re.search(r'exited\]\n\[Switching to Thread 0x[0-9a-f]+ \(LWP N\)\]\n\nThread 1 "thread_events" hit '
                     r'Breakpoint 2, main', got), got


def test_a_stop_in_the_thread_last_shown_after_selecting_another(prog: Path) -> None:
    # gdb compares the stop's thread with the one selected when the program resumed.
    got, expected = _both(prog, ex(f"break {SOURCE}:{marker_line(SOURCE, 'worker')}", "run", "watch shared",
                                   "thread 1", "c", "c"))
    # Where main waits for the worker then (creating it, joining it) is a race: not compared.
    assert re.sub(r"(\[Switching to thread 1 .*\n).*\n.*\n", r"\1", got) == \
        re.sub(r"(\[Switching to thread 1 .*\n).*\n.*\n", r"\1", expected)
    assert got.count("[Switching to Thread 0x") == 2, got


def test_print_thread_events_off(prog: Path) -> None:
    got, expected = _both(prog, _stops("set print thread-events off", "show print thread-events"))
    assert got == expected
    assert "[New Thread" not in got and "exited]" not in got.replace("exited normally]", "")


def _mi_first_thread_stop(prog: Path, gdb: bool) -> list[str]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(prog)], cwd=prog.parent, gdb=gdb)
    try:
        mi.prompt()
        mi.ok(f"-break-insert {SOURCE}:{marker_line(SOURCE, 'worker')}")
        mi.ok("-exec-run")
        lines = mi.read_until(lambda line: line.startswith("*stopped"))
        mi.prompt()
    finally:
        mi.close()
    kept = [line for line in lines if line.startswith(("=thread", "~", "*running"))]
    kept = [line for line in kept if "libthread_db" not in line]
    return [re.sub(r"LWP \d+|pid=\"\d+\"", "N", line) for line in kept]


def test_mi_thread_records_and_console_as_gdb(prog: Path) -> None:
    got = _mi_first_thread_stop(prog, gdb=False)
    assert got == _mi_first_thread_stop(prog, gdb=True)
    assert '*running,thread-id="2"' in got
