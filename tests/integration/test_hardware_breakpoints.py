"""gdb's hardware breakpoints: `hbreak` and `thbreak` (gdb.base/hbreak2.exp) and MI's
`-break-insert -h`, undefined in ours before. They need a live process ("No hardware
breakpoint support in the target." before `run`), are announced as "Hardware assisted
breakpoint", listed as "hw breakpoint" and saved as hbreak/thbreak; a resume with more
enabled than x86's four debug registers is refused in gdb's words, naming those past the
fourth in address order (those at one address share one). Compared with gdb."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb
from tests.support.build import Builder, marker_line

pytestmark = [needs_gdb, pytest.mark.timeout(120)]

SOURCE = "hw_breaks.c"


@pytest.fixture
def program(builder: Builder) -> Path:
    return builder.build("hw_breaks")


def test_hbreak_needs_a_process_and_stops_as_a_breakpoint(program: Path) -> None:
    got = output_like_gdb(program, [
        "hbreak main", "thbreak nosuch", "hbreak 999", "info breakpoints", "break main", "run",
        "thbreak factorial", f"hbreak {marker_line(SOURCE, 'print')}", "hbreak", "info breakpoints",
        "continue", "continue", "info breakpoints", "hbreak main if sum == 3", "hbreak 12 thread 9",
        "hbreak 12 foo", "interpreter-exec mi \"-break-insert -h five\"", "interpreter-exec mi \"-break-insert -t -h four\"",
        "info breakpoints", "continue", "continue"])  # fmt: skip
    assert "No hardware breakpoint support in the target." in got
    assert "Temporary breakpoint 2, factorial (n=4)" in got and "hw breakpoint  del  y" in got
    assert 'bkpt={number="6",type="hw breakpoint"' in got  # two at main's address share a register


def test_more_hardware_breakpoints_than_debug_registers(program: Path) -> None:
    got = output_like_gdb(program, [
        "break main", "run", *(f"hbreak {name}" for name in ("one", "two", "three", "four", "five", "factorial")),
        "next", "continue", "disable 7", "continue", "delete 3 4", "continue", "continue", "info breakpoints"])  # fmt: skip
    assert got.count("Could not insert hardware breakpoints:") == 3
    assert "Breakpoint 2, one (x=24)" in got


def test_saved_hardware_breakpoints(program: Path, tmp_path: Path) -> None:
    saved = tmp_path / "saved.gdb"
    got = output_like_gdb(program, ["break main", "run", "hbreak one", "thbreak two", f"save breakpoints {saved}",
                                    "delete", f"source {saved}", "info breakpoints"])  # fmt: skip
    assert "hw breakpoint  del  y" in got
