"""`break FILE:LINE` when a library has a source file of the same name (glibc's own
`loop.c`, `util.c`...): gdb binds only where some file has code at that very line, and
moves to the nearest later line only when no file has; re-set when the library loads, the
breakpoint must not grow places in the library's file at a later line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb

pytestmark = [needs_gdb, pytest.mark.timeout(120)]

PROGRAM = """\
int twice(int v);

int main(void) {
    int total = 0;
    for (int i = 0; i < 3; i++)
        total += twice(i);    /* line 6: code here in the program's same.c */
    return total == 6 ? 0 : 1;
}
"""

# The library's same.c has no code before line 12, so line 6 would move to line 12 in it.
LIBRARY = "\n" * 10 + "int twice(int v)\n{\n    return 2 * v;\n}\n"


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("same_named")
    (root / "lib").mkdir()
    (root / "lib" / "same.c").write_text(LIBRARY)
    (root / "same.c").write_text(PROGRAM)
    library = root / "libsame.so"
    subprocess.run(
        ["gcc", "-g", "-O0", "-shared", "-fPIC", "-o", str(library), "lib/same.c"],
        cwd=root,
        check=True,
    )
    prog = root / "same"
    subprocess.run(["gcc", "-g", "-O0", "-o", str(prog), "same.c", "-L.", "-lsame", "-Wl,-rpath," + str(root)],
                   cwd=root, check=True)  # fmt: skip
    return prog


def test_exact_line_in_one_file_keeps_the_other_files_out(program: Path) -> None:
    got = assert_like_gdb(
        [
            *ex("break same.c:6", "run", "info breakpoints", "continue", "info breakpoints"),
            str(program),
        ],
        program.parent,
    )
    assert "<MULTIPLE>" not in got.stdout
    assert "breakpoint already hit 2 times" in got.stdout


def test_no_file_with_code_at_the_line_takes_the_nearest_later_line_of_all(program: Path) -> None:
    # Line 3: the program's same.c has code from line 4, the library's from line 12.
    commands = ex(
        "break main", "run", "break same.c:3", "break same.c:11", "info breakpoints", "continue"
    )
    got = assert_like_gdb([*commands, str(program)], program.parent)
    assert "Breakpoint 3 at 0x" in got.stdout and "file same.c, line 4." in got.stdout
    assert "<MULTIPLE>" not in got.stdout
