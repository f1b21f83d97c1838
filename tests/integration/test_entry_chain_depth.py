"""Entry values chained through a recursion 3,000 frames deep (tests/programs/entry_chain.c):
gdb 13 evaluates each caller's call value inside the expression that asked and stops at
256 deep with "DWARF-2 expression error: Loop detected (257)." (`<error reading variable:
...>` in frame lines and MI lists, `<error reading variable n (...)>` in info locals and
bt full, the error itself for print). A frame within 256 links of main has its value."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder, marker_line
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(600)]

# main calls deep(_, 3000): frame F has n = F, and n's chain reaches main in 3001 - F links
LAST_TOO_DEEP, FIRST_FOUND = 2744, 2745  # n's own value; n@entry needs one link less


def _program(builder: Builder) -> Path:
    return builder.build("entry_chain", ("-g", "-O2"))


def _stack_addresses(text: str) -> str:
    """info frame's stack addresses differ with the environment (gdb adds LINES, COLUMNS)."""
    return re.sub(r"0x7ff[0-9a-f]{9}\b", "0x7ff...", normalized(text))


def test_console_shows_gdbs_loop_error(builder: Builder, tmp_path: Path) -> None:
    program = _program(builder)
    args = ["-batch", "-nx", *ex(
        f"break entry_chain.c:{marker_line('entry_chain.c', 'bottom')}", "run", "bt 2", "info frame", "p keep@entry",
        "p n@entry", f"frame {LAST_TOO_DEEP - 1}", f"frame {LAST_TOO_DEEP}", "p n", "p n@entry", "info args",
        "info locals", "info frame", f"frame {FIRST_FOUND}", "p n", "p $", "bt -full -2", "bt full 2"), str(program)]  # fmt: skip
    expected, got = theirs(args, tmp_path), ours(args, tmp_path)
    assert _stack_addresses(got.stdout) == _stack_addresses(expected.stdout)
    assert (normalized(got.stderr), got.returncode) == (normalized(expected.stderr), expected.returncode)  # fmt: skip
    assert "Loop detected (257)" in got.stdout and f"n=n@entry={FIRST_FOUND}" in got.stdout


@pytest.mark.parametrize("mode", ["both", "only", "compact", "if-needed", "preferred", "no"])
def test_entry_value_modes_over_the_error(builder: Builder, tmp_path: Path, mode: str) -> None:
    """gdb drops an entry value's error its value has too (default, compact); both, only
    and preferred show such an entry value as <optimized out>."""
    program = _program(builder)
    assert_like_gdb([
        *ex(f"break entry_chain.c:{marker_line('entry_chain.c', 'bottom')}", "run",
            f"set print entry-values {mode}", "frame 0", "frame 1", f"frame {LAST_TOO_DEEP}", f"frame {FIRST_FOUND}"),
        str(program),
    ], tmp_path)  # fmt: skip


def _mi_lists(program: Path, cwd: Path, *, gdb: bool) -> list[object]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        mi.ok(f"-break-insert entry_chain.c:{marker_line('entry_chain.c', 'bottom')}")
        mi.ok("-exec-run")
        seen: list[object] = [mi.stopped().results["frame"]]
        for command in ("-stack-list-arguments 1 0 1", f"-stack-list-arguments 2 {LAST_TOO_DEEP - 1} {FIRST_FOUND}",
                        "-stack-list-variables 1", f"-stack-select-frame {LAST_TOO_DEEP}", "-stack-list-variables 1",
                        "-data-evaluate-expression n@entry", "-stack-list-locals 1"):  # fmt: skip
            seen.append(mi.ok(command).results)
        seen.append(mi.error("-data-evaluate-expression n"))
        return seen
    finally:
        mi.close()


def test_mi_lists_show_gdbs_loop_error(builder: Builder, tmp_path: Path) -> None:
    program = _program(builder)
    ours, gdb = _mi_lists(program, tmp_path, gdb=False), _mi_lists(program, tmp_path, gdb=True)
    assert ours == gdb
    assert "Loop detected (257)" in repr(ours)


@pytest.mark.parametrize("arguments", ["none", "presence"])
def test_frame_arguments_none_reads_no_entry_values(builder: Builder, tmp_path: Path, arguments: str) -> None:
    """gdb's print_frame_args reads no argument under `print frame-arguments none` (nor
    presence): `n=...`, never `n=n@entry=...` nor `n@entry=...`; bt -frame-arguments too."""
    program = _program(builder)
    args = ["-batch", "-nx", *ex(
        f"set print frame-arguments {arguments}", f"break entry_chain.c:{marker_line('entry_chain.c', 'bottom')}",
        "run", "bt 2", "bt -2", "frame 1", "info frame", "bt -frame-arguments scalars -2",
        "bt -frame-arguments none 1"), str(program)]  # fmt: skip
    expected, got = theirs(args, tmp_path), ours(args, tmp_path)
    assert _stack_addresses(got.stdout) == _stack_addresses(expected.stdout)
    assert "@entry=..." not in got.stdout and "n=n@entry=3000" in got.stdout  # the scalars bt's
