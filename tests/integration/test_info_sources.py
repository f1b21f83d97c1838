"""gdb's source file listing against gdb 13 on a two-file program: `info sources` with
-basename, -dirname and --, and MI's -file-list-exec-source-files with --group-by-objfile,
--basename and --dirname, whose debug-fully-read tells which units have been read."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import PATIENCE, assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder
from tests.support.gdb import gdb_path
from tests.support.mi_client import ROOT

pytestmark = [pytest.mark.timeout(240), needs_gdb]


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return builder.build("symbol_search", also=("symbol_search_part",))


def test_info_sources(program: Path) -> None:
    assert_like_gdb([*ex(
        "info sources", "info sources -basename part", "info sources -dirname programs$", "info sources -- -x",
        "info sources -basename -dirname x", "info sources nosuch",
    ), str(program)], program.parent)  # fmt: skip


def _mi_results(command: list[str], program: Path, lines: list[str]) -> list[str]:
    done = subprocess.run([*command, "-nx", "-q", "-i=mi", str(program)], input="\n".join([*lines, "-gdb-exit", ""]),
                          capture_output=True, text=True, timeout=PATIENCE, cwd=program.parent,
                          env={"PYTHONPATH": str(ROOT)})  # fmt: skip
    return [line for line in done.stdout.splitlines() if line.startswith("^") and line != "^exit"]


def test_file_list_exec_source_files(program: Path) -> None:
    # the part file's unit is read once the program stops in it (gdb expands its symtab)
    commands = [
        "-file-list-exec-source-files --basename -- _part", "-file-list-exec-source-files --dirname -- nosuch",
        "-file-list-exec-source-files --group-by-objfile --basename -- _part",
        "-file-list-exec-source-files --basename x y", "-file-list-exec-source-files --bogus",
        "-break-insert part_total", "-exec-run", "-file-list-exec-source-files --basename -- _part\\.c$",
    ]  # fmt: skip
    gdb = gdb_path()
    assert gdb is not None
    theirs = _mi_results([gdb], program, commands)
    ours = _mi_results([sys.executable, "-m", "aliceserver"], program, commands)
    assert ours == theirs
