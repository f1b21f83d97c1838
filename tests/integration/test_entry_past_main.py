"""Entry values stop at main as gdb 13's do: gdb reads a frame's caller with get_prev_frame,
which gives none for main while `backtrace past-main` is off (its default). So main's
parameters show no NAME@entry, nor does a deeper parameter whose call site value needs
main's (`index=<optimized out>`), though main's caller has the call site that would give
them; with past-main on they do. The program has its own entry point, so main's caller has
call sites without libc's debug info; function_ends.c is main called by libc."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_BACKTRACES = ex("run", "bt", "set backtrace past-main on", "bt", "set backtrace past-main off", "bt")


def _like_gdb(args: list[str], cwd: Path) -> str:
    """`-batch -nx ARGS` under both: the same output, but for stack addresses (gdb adds
    LINES and COLUMNS to the environment), `argv@entry` among them."""
    args = ["-batch", "-nx", *args]
    expected, got = theirs(args, cwd), ours(args, cwd)
    shown = [re.sub(r"0x7ff[0-9a-f]+", "0x7ff...", normalized(run.stdout + run.stderr)) for run in (got, expected)]
    assert shown[0] == shown[1]
    return shown[0]


def _program(builder: Builder) -> Path:
    return builder.build("entry_past_main", ("-g", "-O2"), extra=("-nostartfiles",))


@pytest.mark.parametrize("where", ["main", "twice"])
def test_no_entry_values_through_mains_caller(builder: Builder, tmp_path: Path, where: str) -> None:
    shown = _like_gdb([*ex(f"break {where}"), *_BACKTRACES, str(_program(builder))], tmp_path).split("\n#0 ")
    main_off, main_on = (next(line for line in bt.splitlines() if re.search(r"\bmain \(", line)) for bt in shown[1:3])
    assert "@entry" not in main_off and "argc=argc@entry=1" in main_on
    assert where == "main" or ("index=<optimized out>" in shown[1] and "index=index@entry=0" in shown[2])


def test_past_main_from_the_start(builder: Builder, tmp_path: Path) -> None:
    shown = _like_gdb([*ex("set backtrace past-main on", "break twice", "run", "bt"), str(_program(builder))], tmp_path)
    assert "index=index@entry=0" in shown


def test_main_called_by_libc(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("function_ends", ("-g", "-O2"))
    assert "main (argc=1, argv=0x" in _like_gdb([*ex("break main", "run", "bt"), str(program)], tmp_path)
