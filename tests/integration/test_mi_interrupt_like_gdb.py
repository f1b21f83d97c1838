"""An interrupt and an attach through MI, against gdb 13 (all-stop, mi-async on).

gdb's all-stop interrupt sends the program SIGINT (inf_ptrace's interrupt), so
-exec-interrupt and the console's `interrupt` stop with "Program received signal SIGINT,
Interrupt." and *stopped,reason="signal-received",signal-name="SIGINT"; an attach stops
with the frame alone: no reason, no "Program stopped."."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import parse_record

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def _told(lines: list[str]) -> tuple[str, tuple[object, ...]]:
    """The console text before the last *stopped (addresses and arguments left out: the
    frame line) and that record's reason, signal name and meaning."""
    stop = parse_record(lines[-1])
    console = "".join(r.text for r in map(parse_record, lines[:-1]) if r.kind == "console")
    said = "\n".join(line for line in console.splitlines()
                      if "(" not in line and not line.startswith(("[", "Using host libthread_db")))  # fmt: skip
    return said, tuple(stop.results.get(key) for key in ("reason", "signal-name", "signal-meaning"))


def _interrupts(program: Path, cwd: Path, *, gdb: bool) -> list[tuple[str, tuple[object, ...]]]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        mi.ok("-gdb-set mi-async on")
        mi.ok("-exec-run")
        time.sleep(0.3)
        mi.ok("-exec-interrupt")
        first = _told(mi.read_until(lambda line: line.startswith("*stopped")))
        mi.ok("-exec-continue")
        time.sleep(0.3)
        mi.ok('-interpreter-exec console "interrupt"')
        second = _told(mi.read_until(lambda line: line.startswith("*stopped")))
        return [first, second]
    finally:
        mi.close()


def _attach(program: Path, cwd: Path, *, gdb: bool) -> tuple[str, tuple[object, ...]]:
    running = subprocess.Popen([str(program)], stdout=subprocess.DEVNULL, cwd=cwd)
    mi = MiClient(["-i=mi", "-q", "-nx"], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        mi.ok("-gdb-set mi-async on")
        mi.send(f"-target-attach {running.pid}")
        return _told(mi.read_until(lambda line: line.startswith("*stopped")))
    finally:
        mi.close()
        running.kill()
        running.wait()


def test_interrupt_is_sigint_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("longrun")
    theirs, ours = (
        _interrupts(program, tmp_path, gdb=True),
        _interrupts(program, tmp_path, gdb=False),
    )
    assert ours == theirs
    assert ours[0][1] == ("signal-received", "SIGINT", "Interrupt")


def test_attach_stop_has_no_reason_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("longrun")
    theirs, ours = _attach(program, tmp_path, gdb=True), _attach(program, tmp_path, gdb=False)
    assert ours == theirs
    assert ours[1] == (None, None, None)
