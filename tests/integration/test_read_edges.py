"""A read that runs off mapped memory fails where the memory ends: gdb 13's memory_error
names the first byte it could not read (a long 4 bytes before an unmapped page: the page's
address), for print, output, x and a cast to an array; side by side with gdb."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_SOURCE = """\
#include <sys/mman.h>
char *edge;
int main(void) {
  char *p = mmap(0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  munmap(p + 4096, 4096);
  edge = p + 4096;
  return 0;
}
"""


def test_reads_off_the_end_like_gdb(tmp_path: Path) -> None:
    (tmp_path / "edge.c").write_text(_SOURCE)
    subprocess.run(["gcc", "-g", "-O0", "-o", "edge", "edge.c"], cwd=tmp_path, check=True)
    program = tmp_path / "edge"
    reads = ["print *(long *)(edge - 4)", "output *(int *)(edge - 2)", "x/g edge - 4", "x/2w edge - 4",
             "print *(char (*)[16])(edge - 8)", "print *(long *)(edge - 8)"]  # fmt: skip
    got = output_like_gdb(program, ["break 7", "run", *reads])
    assert got.count("Cannot access memory at address 0x") >= 5
