"""`list` with what gdb 13's list_command takes and the searches from the listed lines,
side by side with gdb on a program of two files and a header with code
(gdb.base/list.exp, break.exp): explicit locations (`list -q main`, `-source F -line N`,
`-function F`, an unknown option refused as `invalid explicit location argument`), a quoted
'FILE:FUNCTION', FILE:FUNCTION whose file or function is not there in gdb's words, `set
listsize 0` listing the whole file, `forward-search`/`search`/`reverse-search` (their
`Expression not found`, the previous expression again, `$_`, the next `list` centred on the
match), and `break N` in the file `list` showed last though the program stopped in another
(`until N`, `advance N` and `jump N` in the stopped frame's)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb
from tests.support.gdb import gdb_path
from tests.support.mi_client import ROOT

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_HEADER = """\
/* A header with code in it */
static int twice (int x)
{
  return 2 * x;
}
"""

_FIRST = """\
#include "twice.h"
int helper (int);

int main (void)
{
  int x = 0;
  x = twice (x + 1);
  x = helper (x);
  return x - 4;
}
"""

_SECOND = """\
#include <stdio.h>

int helper (int a)
{
  int b = a + 1;  /* 4321 is not here */
  printf ("%d\\n", b);
  b = b * 6789;
  b = b / 67;
  return b;
}
""" + "".join(f"/* filler {i} */\n" for i in range(15))


_THIRD = """\
int counted (int n)
{
  int s = 0;
 again:
  s += n;
  if (--n > 0)
    goto again;
  return s;
}

__attribute__ ((constructor)) static void early (void)
{
  counted (2);
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("listing")
    (where / "twice.h").write_text(_HEADER)
    (where / "first.c").write_text(_FIRST)
    (where / "second.c").write_text(_SECOND)
    (where / "third.c").write_text(_THIRD)
    subprocess.run(
        ["gcc", "-g", "-O0", "-o", "listed", "first.c", "second.c", "third.c"],
        cwd=where,
        check=True,
    )
    return where / "listed"


def test_explicit_and_quoted_locations(program: Path) -> None:
    got = output_like_gdb(program, [
        "list -q main", "list -INVALID", "list -qualified helper", "list -source second.c -line 8",
        "list -function twice", "list -source first.c -function main", "list -line 3",
        "list 'first.c:main'", "list nosuch.c:main", "list twice.h:nosuch", "list -source second.c",
    ])  # fmt: skip
    assert 'invalid explicit location argument, "-INVALID"' in got
    assert (
        "No source file named nosuch.c." in got
        and 'Function "nosuch" not defined in "twice.h".' in got
    )


def test_unlimited_listsize_lists_the_whole_file(program: Path) -> None:
    got = output_like_gdb(
        program,
        [
            "set listsize 0",
            "list 1",
            "list second.c:1",
            "list helper",
            "set listsize unlimited",
            "list 3,",
        ],
    )
    assert "10\t}" in got and "25\t/* filler 14 */" in got


def test_searches_go_on_from_the_listed_lines(program: Path) -> None:
    got = output_like_gdb(program, [
        "set listsize 4", "list helper", "search 4321", "search 6789", "print $_", "forward-search 6789",
        "reverse-search 6789", "reverse-search 67", "list", "search", "fo b =", "rev printf", "list -",
        "search \\(b\\) [*/]", "reverse-search [", "search a\\{1,\\}", "list 1,2", "reverse-search include",
    ])  # fmt: skip
    assert "Expression not found" in got and "7\t  b = b * 6789;" in got


def test_break_line_in_the_file_listed_last(program: Path) -> None:
    output_like_gdb(
        program, ["list 5,6", "break +2", "list helper", "break 8", "break +1", "info breakpoints"]
    )
    # stopped in first.c: `break N` takes the listed file, `break +N` the frame's line
    got = output_like_gdb(
        program, ["break main", "run", "list helper", "break 9", "break +1", "info breakpoints"]
    )
    assert "Breakpoint 2 at " in got and "file second.c, line 9." in got
    # until, advance and jump count in the stopped frame's file (decode_line_with_last_displayed)
    got = output_like_gdb(program, [
        "break main", "run", "list helper", "advance 8", "list helper", "until 9", "list helper", "jump 9",
    ])  # fmt: skip
    assert "main () at first.c:9" in got


def test_offsets_labels_quoted_files_and_character_classes(program: Path) -> None:
    got = output_like_gdb(program, [
        "list -3", "list +3", "list main,+3", "list -3", "list +2", "list -line +2", "list -f",
        "list -label again", "list -function counted -label again", "list -source third.c -function counted -label again",
        "list 'second.c':5", "list \"third.c\":2,4", "search [[:digit:]]\\+", "search [[:upper:]]",
        "search [[:nosuch:]]", "reverse-search []a]", "reverse-search [[:punct:]][[:space:]]*$",
        "break counted", "run", "list -label again", "list -label nosuch", "list -2",
    ])  # fmt: skip
    assert (
        'missing argument for "-f"' in got
        and 'No label "nosuch" defined in current function.' in got
    )
    assert "Breakpoint 1, counted (n=2) at third.c:3" in got and "4\t again:" in got


def test_current_source_file_is_the_one_listed_last(program: Path) -> None:
    """`info source` and MI's -file-list-exec-source-file name gdb's current source file and
    line: the file a listing or a stop showed last (the line after a listing)."""
    output_like_gdb(program, [
        "break counted", "run", "info source", "list helper", "info source", "up", "info source",
    ])  # fmt: skip
    commands = [
        "-file-list-exec-source-file", '-interpreter-exec console "list helper"', "-file-list-exec-source-file",
        "-break-insert 8", "-exec-run", "-file-list-exec-source-file", '-interpreter-exec console "list counted"',
        "-file-list-exec-source-file", "-gdb-exit",
    ]  # fmt: skip
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    runs = [[str(gdb_path())], [sys.executable, "-m", "aliceserver"]]
    expected, got = (
        [
            line
            for line in subprocess.run(
                [*argv, "-nx", "-q", "-i=mi", str(program)], input="\n".join(commands) + "\n",
                capture_output=True, text=True, timeout=120, cwd=program.parent, env=env,
            ).stdout.splitlines()
            if line.startswith("^done,line=")
        ]
        for argv in runs
    )  # fmt: skip
    assert got == expected
    assert (
        len(got) == 4
        and 'line="11",file="second.c"' in got[1]
        and 'line="8",file="second.c"' in got[2]
    )


def test_list_a_file_without_code(tmp_path: Path) -> None:
    """gdb.base/include-main.exp: a unit's own file that only includes the code is in no
    line table row, and gdb finds it by the unit's name."""
    (tmp_path / "body.c").write_text("int\nmain (void)\n{\n  return 0;\n}\n")
    (tmp_path / "whole.c").write_text('/* one */\n/* two */\n#include "body.c"\n')
    subprocess.run(["gcc", "-g", "-O0", "-o", "whole", "whole.c"], cwd=tmp_path, check=True)
    got = output_like_gdb(
        tmp_path / "whole", ["list whole.c:3", "list whole.c:1,2", "list body.c:2"]
    )
    assert '3\t#include "body.c"' in got
