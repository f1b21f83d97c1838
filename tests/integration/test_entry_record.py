"""A parameter whose location list is only gcc's empty entry-point record ([entry, entry)):
gdb reads that record at the function's entry, so NAME@entry is known from the caller while
NAME itself is optimized out (gdb 13's `lost@entry=5` in every `print entry-values` mode)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

MODES = ("no", "only", "preferred", "if-needed", "both", "compact", "default")


def test_entry_record_gives_the_entry_value_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("entry_record", ("-g", "-O2"))
    line = marker_line("entry_record.c", "validity")
    commands = ["-ex", f"break entry_record.c:{line}", "-ex", "run", "-ex", "print lost@entry"]
    for mode in MODES:
        commands += ["-ex", f"set print entry-values {mode}", "-ex", "frame", "-ex", "info args"]
    assert_like_gdb([*commands, str(program)], tmp_path)


def _mi_variables(program: Path, cwd: Path, *, gdb: bool) -> list[object]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        mi.ok(f"-break-insert entry_record.c:{marker_line('entry_record.c', 'validity')}")
        mi.ok("-exec-run")
        seen: list[object] = [mi.stopped().results["frame"]]
        for mode in MODES:
            mi.ok(f"-gdb-set print entry-values {mode}")
            seen.append(mi.ok("-stack-list-variables --all-values").results)
            seen.append(mi.ok("-stack-list-arguments 1 0 0").results)
        return seen
    finally:
        mi.close()


def test_mi_lists_the_entry_record_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("entry_record", ("-g", "-O2"))
    ours, gdb = _mi_variables(program, tmp_path, gdb=False), _mi_variables(program, tmp_path, gdb=True)
    assert ours == gdb
    assert "'lost@entry'" in repr(ours) and "'5'" in repr(ours)
