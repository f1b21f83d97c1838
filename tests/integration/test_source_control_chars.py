"""Source lines as gdb 13 numbers and prints them. gdb.base/funcargs.c has form feeds
between its functions: gdb numbers lines at newlines only, so a form feed (or a vertical
tab, or the `\\r` of a CRLF line) starts no line, and a stop, `finish`, `step` and `list`
after it show the line of that number; a control character other than a tab prints as
`^L`, DEL as `^?`. `info source` counts the lines the same way."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

SOURCE = (
    "static int twice (int x)\n"
    "{\n"
    "  return 2 * x;\n"
    "}\n"
    "\f\n"
    "static int thrice (int x)\n"
    "{\n"
    "  int y = 3 * x;\x0b /* a vertical tab */\n"
    "  return y; /* \x7f */\n"
    "}\r\n"
    "\f\n"
    "int main (void)\n"
    "{\n"
    "  int a = twice (2);\n"
    "  int b = thrice (a);\n"
    "  return a + b - 20;\n"
    "}\n"
)


@pytest.fixture()
def program(tmp_path: Path) -> Path:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc not installed")
    (tmp_path / "ff.c").write_bytes(SOURCE.encode())
    subprocess.run(
        [gcc, "-g", "-O0", "-o", str(tmp_path / "ff"), str(tmp_path / "ff.c")], check=True
    )
    return tmp_path / "ff"


def test_lines_after_form_feeds_like_gdb(program: Path) -> None:
    session = ex(
        "list 1,20", "break twice", "run", "finish", "step", "step", "step", "next", "info source"
    )
    args = ["-batch", "-nx", *session, str(program)]
    expected, got = theirs(args, program.parent), ours(args, program.parent)
    assert normalized(got.stdout) == normalized(expected.stdout)
    assert normalized(got.stderr) == normalized(expected.stderr)
    assert (
        "5\t^L\n" in got.stdout
        and "return y; /* ^? */" in got.stdout
        and "Contains 17 lines." in got.stdout
    )
