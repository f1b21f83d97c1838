"""gdb's `show language` ("auto; currently c++": the frame's language, else main's) and
MI's --language option, which names a language gdb knows (not auto), against gdb 13."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import PATIENCE, assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder, find_cxx
from tests.support.core_backend import core_of_stop
from tests.support.gdb import gdb_env, gdb_path, run_gdb
from tests.support.mi_client import ROOT
from tests.support.mi_console import console_at

pytestmark = [pytest.mark.timeout(240), needs_gdb, pytest.mark.both_backends]


@pytest.fixture(scope="module")
def c_program(builder: Builder) -> Path:
    return builder.build("symbol_search", also=("symbol_search_part",))


@pytest.fixture(scope="module")
def cpp_program(builder: Builder) -> Path:
    if find_cxx() is None:
        pytest.skip("no C++ compiler")
    return MoreBuilder(builder.cache_dir).build_cpp("cpp_values")


def test_show_language_before_run(c_program: Path) -> None:
    assert_like_gdb([*ex("show language", "show lang ada"), str(c_program)], c_program.parent)


def test_show_language_of_a_cplus_frame(cpp_program: Path, backend: str, tmp_path: Path) -> None:
    commands = ["show language", "show lang"]
    replies = run_gdb(cpp_program, ["break main", "run", *commands], env=gdb_env(), cwd=os.getcwd())
    theirs = [r.output.rstrip("\n") for r in replies[2:]]
    assert console_at(cpp_program, "main", commands, gdb_env(), core_of_stop(backend, tmp_path)) == theirs


def _mi_results(command: list[str], program: Path, lines: list[str]) -> list[str]:
    done = subprocess.run([*command, "-nx", "-q", "-i=mi", str(program)], input="\n".join([*lines, "-gdb-exit", ""]),
                          capture_output=True, text=True, timeout=PATIENCE, cwd=program.parent,
                          env={"PYTHONPATH": str(ROOT)})  # fmt: skip
    return [line for line in done.stdout.splitlines() if line.startswith("^") and line != "^exit"]


def test_mi_language_option(c_program: Path) -> None:
    commands = ['-data-evaluate-expression --language invlang "sizeof (void*)"',
                '-data-evaluate-expression --language auto "sizeof (void*)"',
                '-data-evaluate-expression --language local "1"', '-data-evaluate-expression --language unknown "1"',
                '-data-evaluate-expression --language c "sizeof (void*)"', "-gdb-show language"]  # fmt: skip
    gdb = gdb_path()
    assert gdb is not None
    theirs = _mi_results([gdb], c_program, commands)
    ours = _mi_results([sys.executable, "-m", "aliceserver"], c_program, commands)
    assert list(zip(commands, ours, strict=True)) == list(zip(commands, theirs, strict=True))
