"""gdb's symbol search against gdb 13 on the same two-file program (symbol_search.c):
`info functions|variables|types` with their options through `-batch`, and MI's
-symbol-info-functions|variables|types|modules, before the program runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import PATIENCE, assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder, find_cxx
from tests.support.gdb import gdb_path
from tests.support.mi_client import ROOT

pytestmark = [pytest.mark.timeout(240), needs_gdb]


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return builder.build("symbol_search", also=("symbol_search_part",))


def test_info_functions_variables_types(program: Path) -> None:
    assert_like_gdb([*ex(
        "info functions", "info variables", "info types", "info functions -n ^[a-m]", "info variables -t double",
        "info types t$", "info functions -q -t long", "info variables -n ratio\\|table", "info types -q zzz",
        "info functions add(", "info variables -n -- -q", "info types -q point",
    ), str(program)], program.parent)  # fmt: skip


def _mi_results(command: list[str], program: Path, lines: list[str]) -> list[str]:
    env = {"PYTHONPATH": str(ROOT)}
    done = subprocess.run([*command, "-nx", "-q", "-i=mi", str(program)], input="\n".join([*lines, "-gdb-exit", ""]),
                          capture_output=True, text=True, timeout=PATIENCE, cwd=program.parent, env=env)  # fmt: skip
    return [line for line in done.stdout.splitlines() if line.startswith("^") and line != "^exit"]


def test_mi_symbol_info(program: Path) -> None:
    commands = [
        "-symbol-info-functions", "-symbol-info-variables --include-nondebug", "-symbol-info-types",
        "-symbol-info-functions --type int --name ^[a-m]", "-symbol-info-variables --name ratio",
        "-symbol-info-types --name _t$", "-symbol-info-functions --max-results 0",
        "-symbol-info-functions --max-results 1 --name ^[a-z]", "-symbol-info-variables --max-results 1",
        "-symbol-info-functions --max-results x", "-symbol-info-types --type int", "-symbol-info-modules",
        "-symbol-info-module-functions", "-symbol-info-functions --include-nondebug --name ^_",
    ]  # fmt: skip
    gdb = gdb_path()
    assert gdb is not None
    theirs = _mi_results([gdb], program, commands)
    ours = _mi_results([sys.executable, "-m", "aliceserver"], program, commands)
    assert list(zip(commands, ours, strict=True)) == list(zip(commands, theirs, strict=True))


def test_info_functions_of_cplus(builder: Builder) -> None:
    # gdb names C++ functions by their demangled linkage names: `measure(geo::Shape*, int)`,
    # `geo::Rect::area() const`, and `main()` without `void`
    if find_cxx() is None:
        pytest.skip("no C++ compiler")
    program = MoreBuilder(builder.cache_dir).build_cpp("cpp_values")
    assert_like_gdb([*ex("info functions -n twice\\|measure\\|middle\\|area\\|^main\\|Counted",
                         "info variables -n ns::\\|geo::"), str(program)], program.parent)
