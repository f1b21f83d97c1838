"""`display/FMT` against gdb 13 on a program built here, typed by a person (no -batch: gdb
shows a new display at once then, before `run` too): gdb's decode_format (a count, a
negative one, `r`, a letter no format knows kept as the display's error), an empty
expression refused."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_SOURCE = """\
int g = 7;
int sq(int x)
{
  int r = x * x;
  return r;
}
int main(void)
{
  return sq(2) == 4 ? 0 : 1;
}
"""


@pytest.fixture(scope="module")
def prog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("display_formats")
    (where / "prog.c").write_text(_SOURCE)
    subprocess.run(["gcc", "-g", "-O0", "-o", "prog", "prog.c"], cwd=where, check=True)
    return where / "prog"


def test_display_formats_like_gdb(prog: Path) -> None:
    commands = ["display g", "display/i $pc", "display/r g", "display/q g", "display/2x g", "display/",
                "display/-1x g", "display/2g &g", "display nosuch", "break sq", "run", "display/rx g",
                "info display", "kill"]  # fmt: skip
    args = ["-nx", "-q", "-iex", "set width 0", *ex(*commands), str(prog)]
    expected, got = theirs(args, prog.parent), ours(args, prog.parent)
    # (the last line is the prompt at the end of input, where gdb and we differ)
    assert normalized(got.stdout).splitlines()[:-1] == normalized(expected.stdout).splitlines()[:-1]
    assert normalized(got.stderr) == normalized(expected.stderr)
    assert '4: /q g = <error: Undefined output format "q".>' in got.stdout
