"""A call of a function gcc folded into another (identical code folding at -O2) names a
callee DIE without code: gdb finds no call target there, so no entry value (`x=3934847389`,
no `x@entry`, and `print x@entry` says why). Ours took the folded function's ELF symbol,
which is the other function's address, and showed `x=x@entry=...` (found by
conformance/generated.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb
from tests.support.build import Builder
from tests.support.gdb import gdb_env
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(120)]


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("folded_calls", flags=("-g", "-O2"))


def test_console_like_gdb(prog: Path) -> None:
    commands = ["break twin_a", "run", "continue", "bt", "print x@entry", "info args"]
    args = [arg for command in commands for arg in ("-ex", command)]
    got = assert_like_gdb([*args, str(prog)], prog.parent)
    assert "twin_a (x=3934847389)" in got.stdout
    assert "DW_AT_call_target is not specified at" in got.stderr


def _second_stop_frame(program: Path, *, gdb: bool) -> object:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb, env=gdb_env())
    try:
        mi.prompt()
        mi.ok("-break-insert twin_a")
        mi.ok("-exec-run")
        mi.stopped()
        mi.ok("-exec-continue")
        return mi.stopped().results["frame"]
    finally:
        mi.close()


def test_mi_stop_has_no_entry_value(prog: Path) -> None:
    ours, gdb = _second_stop_frame(prog, gdb=False), _second_stop_frame(prog, gdb=True)
    assert ours == gdb
    assert "'x'" in repr(ours) and "x@entry" not in repr(ours)
