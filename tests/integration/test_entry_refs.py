"""Entry values of C++ parameters at -O2 as gdb 13 shows them (`print entry-values
default`, dwarf2/loc.c's value_of_dwarf_reg_entry): a reference has an entry value only
where the call site gives what it referred to (DW_AT_call_data_value): `all=...`, not
`all=all@entry=...`, and `print all@entry` fails with "Cannot resolve
DW_AT_call_data_value"; a parameter an IPA clone no longer receives is located by
DW_OP_GNU_parameter_ref, the caller's value at the call (`b=0x7ff...`, not <optimized out>).
Frame lines, info args, NAME@entry and MI's argument lists, against gdb."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder, find_cxx
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(300),
              pytest.mark.skipif(find_cxx() is None, reason="g++ not installed")]  # fmt: skip

FLAGS = ("-g", "-O2")
FUNCTIONS = ("sum", "first", "byptr", "byref")
STACK = re.compile(r"0x7ff[0-9a-f]{9}")  # the environments differ (gdb adds LINES, COLUMNS)


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("entry_refs", FLAGS)


def _like_gdb(args: list[str], cwd: Path) -> str:
    """`-batch -nx ARGS` under both: the same output but for stack addresses; ours."""
    args = ["-batch", "-nx", *args]
    expected, got = theirs(args, cwd), ours(args, cwd)
    assert STACK.sub("0x7ff...", normalized(got.stdout)) == STACK.sub("0x7ff...", normalized(expected.stdout))
    assert (normalized(got.stderr), got.returncode) == (normalized(expected.stderr), expected.returncode)
    return got.stdout + got.stderr


def test_frames_and_entry_values_like_gdb(program: Path, tmp_path: Path) -> None:
    got = _like_gdb([*ex(
        *(f"break {name}" for name in FUNCTIONS), "run",
        "bt", "info args", "print all@entry", "continue",
        "bt", "print b@entry", "print n@entry", "continue",
        "bt", "info args", "print b", "print *b", "print b@entry", "finish", "continue",
        "bt", "print k@entry", "print *&k@entry", "print m@entry",
        "set print entry-values both", "frame", "set print entry-values compact", "frame",
        "set print entry-values if-needed", "frame", "set print entry-values default", "up", "down",
        "continue",
    ), str(program)], tmp_path)  # fmt: skip
    assert "sum (all=std::vector of length 3" in got
    assert "Cannot resolve DW_AT_call_data_value" in got


def _mi_arguments(program: Path, cwd: Path, *, gdb: bool) -> list[object]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
    seen: list[object] = []
    try:
        mi.prompt()
        for name in FUNCTIONS:
            mi.ok(f"-break-insert {name}")
        mi.ok("-exec-run")
        for _ in FUNCTIONS:
            seen.append(mi.stopped().results["frame"])
            for command in ("-stack-list-arguments 1 0 0", "-stack-list-arguments 2 0 0",
                            "-stack-list-variables 1"):  # fmt: skip
                seen.append(mi.ok(command).results)
            mi.ok("-exec-continue")
        return [STACK.sub("0x7ff...", repr(each)) for each in seen]
    finally:
        mi.close()


def test_mi_lists_entry_values_like_gdb(program: Path, tmp_path: Path) -> None:
    assert _mi_arguments(program, tmp_path, gdb=False) == _mi_arguments(program, tmp_path, gdb=True)
