"""gdb's `info source` in full (compilation directory, producer, DWARF version, macro
info), compared with gdb 13 in the same run: before `run` (none until `list` names a
file), after `list`, at a stop, and for a program whose source file has moved away."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb
from tests.support.build import Builder
from tests.support.moved import Moved, build_moved

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


def _args(program: Path, *commands: str) -> list[str]:
    return [*[arg for command in commands for arg in ("-ex", command)], str(program)]


def test_info_source_before_run_after_list_and_at_a_stop_like_gdb(builder: Builder) -> None:
    prog = builder.build("info_cmds")
    got = assert_like_gdb(_args(prog, "info source", "list fold", "info source", "break main", "run",
                                "info source"), prog.parent)  # fmt: skip
    assert got.stdout.startswith("No current source file.\n")
    assert got.stdout.count("Compiled with DWARF ") == 2


def test_info_source_of_a_moved_file_like_gdb(tmp_path: Path) -> None:
    moved: Moved = build_moved(tmp_path)
    got = assert_like_gdb(_args(moved.program, "list main", "info source", "break twice", "run",
                                "info source"), moved.program.parent)  # fmt: skip
    assert "Producer is " in got.stdout


def test_info_source_of_a_one_line_file_like_gdb(tmp_path: Path) -> None:
    source = tmp_path / "one.c"
    source.write_text("int main(void) { return 0; }\n")
    program = tmp_path / "one"
    subprocess.run(["gcc", "-g", "-O0", "-o", str(program), str(source)], check=True)
    got = assert_like_gdb(_args(program, "break main", "run", "info source"), tmp_path)
    assert "Contains 1 line.\n" in got.stdout  # gdb's singular
