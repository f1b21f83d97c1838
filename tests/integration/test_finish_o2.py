"""`finish` at -O2 as gdb 13 does it. A breakpoint at a function whose first line is an
inlined call stops with that call hidden (gdb's skip_inline_frames): finish is out of the
shown function, so its value is of that function's return type (gdb's find_pc_function),
not of the hidden inlined callee's; a C++ member function defined out of its class has its
type on the declaration. Values in registers (int, double, a small struct) and in memory
(a class with a std::string, sret); the console's "Run till exit from" and "Value returned
is $N", MI's *stopped gdb-result-var and return-value. An ABI-tagged function's frames are
named in full (`label[abi:cxx11](int)`), as gdb's cp_remove_params leaves them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder, find_cxx
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import parse_record

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

FLAGS = ("-g", "-O2")
C_FUNCTIONS = ("half_scaled", "make_pair", "twice")
CPP_FUNCTIONS = ("geo::Shape::total", "geo::Shape::corner", "geo::Shape::named", "ratio", "label")
# The program's environment differs (gdb adds LINES and COLUMNS): so do stack addresses
STACK = re.compile(r"0x7ff[0-9a-f]{9}")


def _like_gdb(args: list[str], cwd: Path) -> str:
    """`-batch -nx ARGS` under both: the same output but for stack addresses; ours."""
    args = ["-batch", "-nx", *args]
    expected, got = theirs(args, cwd), ours(args, cwd)
    assert STACK.sub("0x7ff...", normalized(got.stdout)) == STACK.sub("0x7ff...", normalized(expected.stdout))
    assert (normalized(got.stderr), got.returncode) == (normalized(expected.stderr), expected.returncode)
    return got.stdout


def _session(functions: tuple[str, ...]) -> list[str]:
    """Break at each function, and at each: bt, finish, continue."""
    stops = [command for _ in functions for command in ("bt", "finish", "continue")]
    return ex(*(f"break {name}" for name in functions), "run", *stops)


@pytest.fixture(scope="module")
def cpp_program(builder: Builder) -> Path:
    if find_cxx() is None:
        pytest.skip("g++ not installed")
    return MoreBuilder(builder.cache_dir).build_cpp("finish_o2", FLAGS)


def test_finish_in_c_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("finish_o2", FLAGS)
    got = _like_gdb([*_session(C_FUNCTIONS), str(program)], tmp_path)
    assert got.count("Value returned is $") == len(C_FUNCTIONS)


def test_finish_in_cpp_like_gdb(cpp_program: Path, tmp_path: Path) -> None:
    got = _like_gdb([*_session(CPP_FUNCTIONS), str(cpp_program)], tmp_path)
    assert got.count("Value returned is $") == len(CPP_FUNCTIONS)
    assert '{text = "tri!!", size = 2}' in got and 'Value returned is $5 = "xxx"' in got
    assert "label[abi:cxx11](int) (n=n@entry=3)" in got  # gdb's frame name of a tagged function


def _mi_finishes(program: Path, cwd: Path, functions: tuple[str, ...], *, gdb: bool) -> list[list[object]]:
    """What -exec-finish's *stopped (and a console finish's stream) tells at each function;
    thread and core numbers left out."""
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
    seen: list[list[object]] = []
    try:
        mi.prompt()
        for name in functions:
            mi.ok(f"-break-insert {name}")
        mi.ok("-exec-run")
        for index, _ in enumerate(functions):
            mi.stopped()
            if index % 2:  # the console's finish: its stream too
                _, lines = mi.command('-interpreter-exec console "finish"')
            else:
                _, lines = mi.command("-exec-finish")
            lines += mi.read_until(lambda line: line.startswith("*stopped"))
            seen.append([STACK.sub("0x7ff...", line) for line in lines if line.startswith("~")])
            results = parse_record(lines[-1]).results
            seen.append([results.get(key) for key in ("reason", "frame", "gdb-result-var", "return-value")])
            mi.ok("-exec-continue")
        return seen
    finally:
        mi.close()


@pytest.mark.parametrize("language", ["c", "c++"])
def test_mi_finish_like_gdb(builder: Builder, cpp_program: Path, tmp_path: Path, language: str) -> None:
    program, functions = (builder.build("finish_o2", FLAGS), C_FUNCTIONS) if language == "c" \
        else (cpp_program, CPP_FUNCTIONS)  # fmt: skip
    ours = _mi_finishes(program, tmp_path, functions, gdb=False)
    gdb = _mi_finishes(program, tmp_path, functions, gdb=True)
    assert ours == gdb
    assert all(entry[2] is not None for entry in ours if entry and entry[0] == "function-finished")
