"""-complete side by side with gdb 13 (gdb.mi/mi-complete.exp): command names without
their abbreviations, settings, breakpoint locations by wild matching (C++ names with
their parameters), and max-completions: its =cmd-param-changed, the matches it cuts
(max_completions_reached) and 0, which disables completion."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder, find_cxx
from tests.support.mi_client import MiClient

COMMANDS = ["-complete br", '-complete "b mai"', '-complete "b push_"', '-complete "tbreak shelf::p"',
            '-complete "set max-comp"', '-complete "show print elem"', "-complete bogus", "-complete",
            "set max-completions 1", "-complete br", '-complete "b push_i"', "-gdb-set max-completions 2",
            '-complete "b push_"', "set max-completions 0", "-complete br"]


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    if find_cxx() is None:
        pytest.skip("no C++ compiler")
    return MoreBuilder(builder.cache_dir).build_cpp("complete_names")


def _transcript(prog: Path, gdb: bool) -> list[str]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(prog)], cwd=prog.parent, gdb=gdb)
    try:
        lines = mi.prompt()
        for command in COMMANDS:
            lines += mi.command(command, token=False)[1]
    finally:
        mi.close()
    if not gdb:
        mi.check()
    return [line for line in lines if not line.startswith("~\"Reading symbols")]


@needs_gdb
def test_complete_like_gdb(prog: Path) -> None:
    expected = _transcript(prog, True)
    assert any('max_completions_reached="1"' in line for line in expected)
    assert _transcript(prog, False) == expected
