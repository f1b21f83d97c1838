"""gdb's queue-signal and demangle against gdb 13 on the same program: a queued signal is
delivered when the thread resumes (its handler runs), 0 clears it, gdb's numbers 1-15 are
gdb's own (10 is SIGBUS), a signal set not to pass is refused, with gdb's errors before run
and at a stop; demangle with each language gdb names (C++, Rust legacy and v0, auto, C
and others without a demangler), its options and errors."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

SOURCE = r"""
#include <signal.h>
#include <stdio.h>
static volatile int got;
static void on(int s) { got = s; }
int main(void) {
  signal(SIGUSR1, on);
  signal(SIGTERM, on);
  printf("start\n");
  fflush(stdout);
  printf("got %d\n", got);
  return 0;
}
"""


@pytest.fixture
def program(tmp_path: Path) -> Path:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc not installed")
    (tmp_path / "sig.c").write_text(SOURCE)
    subprocess.run([gcc, "-g", "-O0", "-o", str(tmp_path / "sig"), str(tmp_path / "sig.c")], check=True)
    return tmp_path / "sig"


def test_queue_signal_like_gdb(program: Path, tmp_path: Path) -> None:
    got = assert_like_gdb([*ex("queue-signal SIGUSR1", "break 10", "break 12", "run", "next", "queue-signal",
                               "queue-signal SIGINT", "queue-signal FOO", "queue-signal 16", "queue-signal SIGUSR1",
                               "continue", "p got", "queue-signal 15", "queue-signal 0", "continue", "run", "next",
                               "queue-signal 10", "continue"), str(program)], tmp_path)  # fmt: skip
    assert "got 10" in got.stdout and "SIGBUS" in got.stdout


DEMANGLED = ["demangle _Z3fooi", "demangle -l c++ _Z3fooi", "demangle -l c++ -- _Z3fooi", "demangle -l c _Z3fooi",
             "demangle -l rust _ZN4core3fmt5write17h0123456789abcdefE", "demangle -l rust _RNvCs1234_7mycrate3foo",
             "demangle -l rust _RNvNtCs1234_7mycrate3bar3foo", "demangle -l auto _Z3fooi", "demangle -l local _Z3fooi",
             "demangle -l", "demangle -x", "demangle -- -l", "demangle -l c++ _Z3fooi extra", "demangle -l c++ foo",
             "demangle -l unknown x", "demangle", "demangle -l rust _ZN3foo3barE", "demangle -l fortran _Z3fooi",
             "demangle -l c++ _ZNSt6vectorIiSaIiEE9push_backERKi", "demangle -l asm _Z3fooi"]


@pytest.mark.parametrize("command", DEMANGLED)
def test_demangle_like_gdb(program: Path, tmp_path: Path, command: str) -> None:
    assert_like_gdb([*ex(command), str(program)], tmp_path)
