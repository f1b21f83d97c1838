"""Attaching after the program's symbols were read alone (a `print` before any run holds
the program for them): gdb 13 reads the attached process's libraries, so `print puts` and
a dlopened library's function are found (ours looked in the program alone, 'No symbol
"puts" in current context.'); its stop line shows the pc where it is mid-line (a process
in a system call); a library's missing source file says so again after a detach and a new
attach, gdb's objfiles for it being new. Side by side with gdb."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_DLWAIT = """\
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {
  if (argc < 2 || !dlopen(argv[1], RTLD_NOW)) return 3;
  puts("loaded");
  fflush(stdout);
  for (int i = 0; i < 1200; i++) usleep(100000);
  return 0;
}
"""


@pytest.fixture
def waiting(builder: Builder, tmp_path: Path) -> Iterator[tuple[Path, int]]:
    library = builder.build("lib_plugin", flags=("-O0",), extra=["-shared", "-fPIC"])
    (tmp_path / "dlwait.c").write_text(_DLWAIT)
    subprocess.run(["gcc", "-g", "-o", "dlwait", "dlwait.c", "-ldl"], cwd=tmp_path, check=True)
    program = tmp_path / "dlwait"
    proc = subprocess.Popen(
        [str(program), str(library)], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"loaded\n"
        yield program, proc.pid
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_attach_after_the_program_alone_like_gdb(waiting: tuple[Path, int]) -> None:
    program, pid = waiting
    commands = ["print puts", "break plugin_work", f"attach {pid}", "print plugin_work", "print puts",
                "detach", f"attach {pid}", "print plugin_work", "detach"]  # fmt: skip
    got = output_like_gdb(program, commands)
    assert got.count("<plugin_work>") == 2
