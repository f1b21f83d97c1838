"""`enable display`, `disable display`, `delete display` and `undisplay` against gdb 13 on a
program built here: the subcommand by any unique prefix (display.exp's `disab disp 1`),
gdb's ambiguity error, and the display numbers read as gdb's number_or_range_parser reads
them (ranges, `$` values, a word that is no number ending the list, gdb's warnings)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_SOURCE = """\
int main(void)
{
  int i = 1, j = 2, k = 3, m = 4;
  i += j + k + m;
  return i == 10 ? 0 : 1;
}
"""


@pytest.fixture(scope="module")
def prog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("display_numbers")
    (where / "prog.c").write_text(_SOURCE)
    subprocess.run(["gcc", "-g", "-O0", "-o", "prog", "prog.c"], cwd=where, check=True)
    return where / "prog"


def _session(*commands: str) -> list[str]:
    return ["break 4", "run", "display i", "display/x j", "display k", "display m", *commands]


def test_display_subcommand_prefixes_like_gdb(prog: Path) -> None:
    out = output_like_gdb(prog, _session("enab  disp 6", "disab disp 1", "disab disp 2", "enab disp 1",
                                         "enab disp 1", "info disp", "dis di 3", "en dis 3", "disable displ 4",
                                         "info display", "delete disp 4", "d display 3", "info display", "next"))  # fmt: skip
    assert "No display number 6." in out and "2:   n  /x j" in out


@pytest.mark.parametrize("command", ["enable d 1", "delete t 1", "delete b 1", "disable d"])
def test_ambiguous_subcommand_like_gdb(prog: Path, command: str) -> None:
    output_like_gdb(prog, _session("echo x\\n", command))


def test_display_numbers_like_gdb(prog: Path) -> None:
    """Each command in a session of its own: an error ends a -batch session."""
    for command in ("undisplay 0", "undisplay 1x 2", "undisplay -1", "undisplay 3-1", "undisplay 2 - 3",
                    "undisplay x 1", "undisplay 4 x 1", "undisplay 7,8", "disable display 1-2 9",
                    "undisplay $zz", "undisplay $9"):  # fmt: skip
        output_like_gdb(prog, _session("set $h = 2", command, "undisplay $h", "info display"))
