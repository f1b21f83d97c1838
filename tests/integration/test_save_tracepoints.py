"""`save breakpoints` and `save tracepoints` with tracepoints (gdb's save_breakpoints):
a tracepoint is written as `trace LOCATION` with its passcount, and the trace state
variables come first; `save tracepoints` keeps only tracepoints. The files are gdb 13's,
byte for byte, and sourcing one makes the same variables and tracepoints again."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, ours, theirs
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


def test_saved_tracepoints_and_variables_are_gdbs(builder: Builder, tmp_path: Path) -> None:
    prog = builder.build("cli_prog")
    made = ex("tvariable $a = 3", "tvariable $z", "break main", "trace add", "passcount 4 2",
              "trace cli_prog.c:14 if i > 1", "disable 3", "tbreak add", "save breakpoints all.gdb",
              "save tracepoints traces.gdb")  # fmt: skip
    again = ex("source traces.gdb", "info tvariables", "info breakpoints")
    runs = {}
    for name, run in (("gdb", theirs), ("ours", ours)):
        cwd = tmp_path / name
        cwd.mkdir()
        saving = run(["-batch", "-nx", *made, str(prog)], cwd)
        sourcing = run(["-batch", "-nx", *again, str(prog)], cwd)
        runs[name] = ((cwd / "all.gdb").read_text(), (cwd / "traces.gdb").read_text(),
                      saving.stdout + saving.stderr, sourcing.stdout + sourcing.stderr)  # fmt: skip
    assert runs["ours"] == runs["gdb"]
    assert runs["ours"][1].startswith("tvariable $a = 3\ntvariable $z\ntrace add\n  passcount 4\n")
