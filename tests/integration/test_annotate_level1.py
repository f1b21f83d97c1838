"""gdb's annotation level 1 (`set annotate 1`, `gdb -fullname`, what Emacs's gud-gdb
reads): a frame's source line at a stop, frame, up, down and finish is replaced by
`\\032\\032FULLNAME:LINE:CHAR:beg|middle:PC` (middle: a step's stop mid-line), and `info
line` of one place adds its annotation; a source file not found keeps gdb's usual text.
Ours refused every level but 0 (gdb.base/setshow.exp "show annotate (1)", "annotation_level
1") and took -fullname as nothing. Side by side with gdb 13."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, normalized, ours, theirs

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_FIRST = (
    "int f2(int);\n\nint f1(int a)\n{\n  return f2(a) + 1;\n}\n\nint main(void) { return f1(3); }\n"
)
_SECOND = "int f2 (int a)\n{\n  int b = a * 2;\n  return b + 1;\n}\n"
_SESSION = ["break f2", "run", "bt", "up", "frame", "down", "info line 1", "info line f1", "info line",
            "next", "stepi", "stepi", "finish", "set annotate 0", "frame", "set annotate 1", "frame", "kill"]  # fmt: skip


def _both(args: list[str], where: Path) -> str:
    expected, got = theirs(args, where), ours(args, where)
    mine = [
        line
        for line in normalized(got.stdout + got.stderr).splitlines()
        if "libthread_db" not in line
    ]
    gdbs = [
        line
        for line in normalized(expected.stdout + expected.stderr).splitlines()
        if "libthread_db" not in line
    ]
    assert mine == gdbs
    return "\n".join(mine)


@pytest.fixture()
def program(tmp_path: Path) -> Path:
    (tmp_path / "first.c").write_text(_FIRST)
    (tmp_path / "second.c").write_text(_SECOND)
    subprocess.run(
        ["gcc", "-g", "-O0", "-o", "annotated", "first.c", "second.c"], cwd=tmp_path, check=True
    )
    return tmp_path / "annotated"


def test_annotate_1_like_gdb(program: Path) -> None:
    args = ["-batch", "-nx", "-ex", "set annotate 1", "-ex", "show annotate"]
    got = _both([*args, *[w for c in _SESSION for w in ("-ex", c)], str(program)], program.parent)
    assert f"\032\032{program.parent}/second.c:3:" in got and ":middle:0x" in got


def test_fullname_option_like_gdb(program: Path) -> None:
    got = _both(["-batch", "-nx", "-fullname", "-ex", "show annotate", "-ex", "break f2", "-ex", "run",
                 str(program)], program.parent)  # fmt: skip
    assert "Annotation_level is 1." in got


def test_missing_source_keeps_the_line(program: Path) -> None:
    (program.parent / "second.c").rename(program.parent / "gone.c")
    _both(["-batch", "-nx", "-ex", "set annotate 1", "-ex", "break f2", "-ex", "run", "-ex", "info line f2",
           "-ex", "up", str(program)], program.parent)  # fmt: skip
