"""`list` and `edit` with a name that stands for more than one place, side by side with gdb
13 (gdb.base/list-ambiguous.exp): two files each with a static function `amb` and a static
variable `ambv`. `list amb` lists around each after gdb's `file: "F", line number: N,
symbol: "amb"`; as the first or last line of a range it is `Specified first line 'amb' is
ambiguous:` (or last) with those lines; a variable's name lists around its declaration;
`edit` says `Specified line is ambiguous:`, else runs `$EDITOR +LINE "FILE"` (through
`shell`, so only with --enable-shell here). A variable declared in a header with no code
lists there too."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, output_like_gdb, theirs

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_FIRST = """\
static void __attribute__ ((used)) amb (void) {}
static int __attribute__ ((used)) ambv;
int other (void);
int main (void)
{
  return other ();
}
"""

_SECOND = """\
/* one */
/* two */
static void __attribute__ ((used)) amb (void) {}
static int __attribute__ ((used)) ambv;
int other (void) { return 0; }
#include "counter.h"
"""

_HEADER = "/* a header with a variable and no code */\n\n\nint counter;\n"


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("ambiguous")
    (where / "amb0.c").write_text(_FIRST)
    (where / "amb1.c").write_text(_SECOND)
    (where / "counter.h").write_text(_HEADER)
    subprocess.run(["gcc", "-g", "-O0", "-o", "amb", "amb0.c", "amb1.c"], cwd=where, check=True)
    return where / "amb"


def test_list_a_name_of_several_places(program: Path) -> None:
    got = output_like_gdb(program, [
        "list amb", "list ambv", "list main,amb", "list amb,", "list ,amb", "list amb,main", "list amb,amb",
        "list ,ambv", "list ambv,", "list main,ambv", "list other", "edit amb", "edit ambv",
    ])  # fmt: skip
    assert 'file: "amb1.c", line number: 3, symbol: "amb"' in got
    assert (
        "Specified first line 'amb' is ambiguous:" in got and "Specified line is ambiguous:" in got
    )


def test_edit_runs_the_editor_at_the_line(program: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EDITOR", "echo")
    args = [
        "-batch",
        "-nx",
        *ex("edit", "edit main", "edit *main", "list other", "edit"),
        str(program),
    ]
    expected, got = theirs(args, program.parent), ours(["--enable-shell", *args], program.parent)
    assert normalized(got.stdout) == normalized(expected.stdout)
    assert normalized(got.stderr) == normalized(expected.stderr)
    assert f"+5 {program.parent / 'amb0.c'}" in got.stdout


def test_list_a_variable_of_a_header_without_code(program: Path) -> None:
    """gdb.base/included.exp: the variable's header has no line table of its own."""
    got = output_like_gdb(program, ["list counter", "list counter,", "list ,counter"])
    assert got.count("4\tint counter;") == 3
