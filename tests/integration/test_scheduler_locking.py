"""gdb's scheduler-locking, side by side with gdb 13 on a program whose worker thread counts
while it runs: with `step`, next leaves the worker stopped; with `on`, continue does too;
with `off`, every thread runs. MI says which threads run (*running,thread-id="1" when the
selected thread runs alone) and tells the setting's changes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


def _session(program: Path, gdb: bool) -> tuple[list[str], list[int]]:
    """The *running records and setting changes, and the worker's count after each move."""
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb)
    seen: list[str] = []
    counts: list[int] = []

    def run(command: str, stops: bool = True) -> None:
        seen.extend(line for line in mi.command(command)[1]
                    if line.startswith(("*running", "=cmd-param-changed", "^error")))
        if stops:
            mi.stopped()
            value = mi.ok("-data-evaluate-expression spins").results["value"]
            assert isinstance(value, str)
            counts.append(int(value))

    try:
        mi.prompt()
        mi.ok(f"-break-insert sched_lock.c:{marker_line('sched_lock.c', 'ready')}")
        run("-exec-run")
        run("set scheduler-locking step", stops=False)
        run("-exec-next")
        run("-exec-next")
        run("set scheduler-locking on", stops=False)
        mi.ok(f"-break-insert sched_lock.c:{marker_line('sched_lock.c', 'later')}")
        run("-exec-continue")
        run("-gdb-set scheduler-locking off", stops=False)
        run("-exec-next")
    finally:
        mi.close()
    return [re.sub(r"^\d+", "", line) for line in seen], counts


def test_scheduler_locking_like_gdb(builder: Builder) -> None:
    program = builder.build("sched_lock")
    expected, gdb_counts = _session(program, gdb=True)
    assert '*running,thread-id="1"' in expected
    got, counts = _session(program, gdb=False)
    assert got == expected
    # locked: the worker did not move during the two nexts and the continue; then it did
    assert counts[0] == counts[1] == counts[2] == counts[3] < counts[4]
    assert gdb_counts[0] == gdb_counts[3] < gdb_counts[4]
