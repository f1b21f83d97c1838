"""A value wholly optimized out that a pretty printer would take (a range-for's iterator
at -O2, libstdc++'s __normal_iterator printer): gdb's value_check_printable prints
`<optimized out>` without running the printer for print, output, info locals, bt full and
frame lines, where running it wrote `Python Exception <class 'gdb.error'>: value has been
optimized out` and an empty value. MI's -data-evaluate-expression runs it (gdb's
common_val_print): the exception on the log stream and no value, as gdb."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder, find_cxx
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(300),
              pytest.mark.skipif(find_cxx() is None, reason="g++ not installed")]  # fmt: skip


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("entry_refs", ("-g", "-O2"))


def test_console_prints_optimized_out_like_gdb(program: Path, tmp_path: Path) -> None:
    args = ["-batch", "-nx", *ex("break sum", "run", "info locals", "print __for_begin", "output __for_begin",
                                 "print $1", "bt full 1", "frame"), str(program)]  # fmt: skip
    expected, got = theirs(args, tmp_path), ours(args, tmp_path)
    if "std::vector of length 3" not in expected.stdout:
        pytest.skip(f"gdb prints no libstdc++ printers here (not installed?): {expected.stdout}")
    assert normalized(got.stdout) == normalized(expected.stdout)
    assert (normalized(got.stderr), got.returncode) == (normalized(expected.stderr), expected.returncode)
    assert "__for_begin = <optimized out>" in got.stdout and "Python Exception" not in got.stderr


def _mi(program: Path, cwd: Path, *, gdb: bool) -> list[str]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        mi.ok("-break-insert sum")
        mi.ok("-exec-run")
        mi.stopped()
        seen: list[str] = []
        for command in ("-data-evaluate-expression __for_begin", "-stack-list-locals 1",
                        '-interpreter-exec console "print __for_begin"',
                        '-interpreter-exec console "info locals"'):  # fmt: skip
            _, lines = mi.command(command)
            seen += lines
        return seen
    finally:
        mi.close()


def test_mi_like_gdb(program: Path, tmp_path: Path) -> None:
    assert _mi(program, tmp_path, gdb=False) == _mi(program, tmp_path, gdb=True)
