"""`rbreak [FILE:]REGEX` as gdb 13's (symtab.c rbreak_command): the functions of `info
functions REGEX` in its order (by file, global before static, name; then those without
debug info by address, `<function, no debug info> NAME;`), each broken at
`FULLNAME:NAME`, so that a static function of a header included by two files is one
breakpoint at both copies, and a function gcc cloned (`.constprop`, `.part`) is listed
once under its own name, its copies inlined into other functions not among its
locations; `add_const` is no C++ method's `add_ const`. Console text and -break-list
against gdb's on a program built here."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.gdb import gdb_env
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import List, Tuple

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

HEADER = """static __attribute__((noinline)) int helper(int x)
{
  return x * 3 + 1;
}
"""
FIRST = """#include <stdio.h>
#include <stdlib.h>
#include "hdr.h"

int nodebug_twice(int);
int from_b(int);

static __attribute__((noinline)) int scale(int x, int k)
{
  int s = 0;
  for (int i = 0; i < x; i++)
    s += i * k + (s >> 3);
  return s;
}

static int heavy(int *p)
{
  if (!p)
    return 0;
  int s = 0;
  for (int i = 0; i < *p; i++) {
    s += i * i;
    if (s > 1000) s = s / 3 + getchar();
    printf("%d\\n", s);
    s += rand();
  }
  return s;
}

int use_heavy(int *p) { return heavy(p) + heavy(p + 1); }

int main(int argc, char **argv)
{
  int v = argc;
  printf("%d\\n", helper(argc) + scale(argc, 3) + scale(v + 2, 3) + from_b(argc) + nodebug_twice(argc));
  if (argc > 5) printf("%d\\n", use_heavy(&v));
  return 0;
}
"""
SECOND = """#include "hdr.h"
int from_b(int x) { return helper(x) + 2; }
int add_const(int x) { return x + 4; }
"""
NO_DEBUG = """int nodebug_twice(int x) { return x * 2; }
static int nodebug_static(int x) { return x + 7; }
int nodebug_calls(int x) { return nodebug_static(x) * 5; }
"""
# The program's names alone (no loader's: before `run` gdb has read none of its symbols)
NAMES = r"^\(nodebug_.*\|helper\|heavy\|scale\|use_heavy\|from_b\|add_const\|main\|printf@plt\)$"


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """hdr.h's static helper in a.c and b.c; a.c at -O2 (scale.constprop.0, heavy.part.0);
    nd.c without debug info."""
    where = tmp_path_factory.mktemp("rbreak")
    for name, text in (("hdr.h", HEADER), ("a.c", FIRST), ("b.c", SECOND), ("nd.c", NO_DEBUG)):
        (where / name).write_text(text)
    subprocess.run(["gcc", "-O0", "-c", "nd.c", "-o", "nd.o"], cwd=where, check=True, timeout=120)
    build = ["gcc", "-g", "-O2", "-o", "prog", "a.c", "b.c", "nd.o"]
    subprocess.run(build, cwd=where, check=True, timeout=120)
    names = subprocess.run(["nm", "prog"], cwd=where, capture_output=True, text=True).stdout
    assert ".constprop." in names and ".part." in names  # what the test is about
    return where / "prog"


def test_rbreak_before_run(program: Path) -> None:
    got = assert_like_gdb([*ex("rbreak a.c:.", "rbreak hdr.h:", "rbreak b.c :help", f"rbreak {NAMES}",
                               "info breakpoints"), str(program)], program.parent)  # fmt: skip
    assert "<function, no debug info> nodebug_static;" in got.stdout
    assert "hdr.h:helper. (2 locations)" in got.stdout


def test_rbreak_everything_before_run(program: Path) -> None:
    """`rbreak .` before `run`: the program's functions alone, as gdb has read no other
    file's symbols yet (ours hold the dynamic loader's, read from the symbol probe)."""
    got = assert_like_gdb([*ex("rbreak .", "info breakpoints"), str(program)], program.parent)
    assert "nodebug_static;" in got.stdout and "_dl_start" not in got.stdout


def test_after_exit_the_libraries_kept(program: Path) -> None:
    """After the program ran and exited gdb keeps the libraries' symbols: `info functions`,
    `info variables` and rbreak find the dynamic loader's (ours: before, the program's alone
    for the info commands). Names only ld.so has (ours hold no other library's after exit)."""
    commands = ["run", "info functions ^_dl_sysdep_start$", "info variables ^_rtld_global_ro$",
                "rbreak ^_dl_sysdep_start$", "info breakpoints"]  # fmt: skip
    got = assert_like_gdb([*ex(*commands), str(program)], program.parent)
    assert "struct rtld_global_ro _rtld_global_ro;" in got.stdout


CXX = """namespace ns {
int over(int x) { return x + 1; }
int over(double x) { return (int)x * 2; }
struct K { int m(int v) const { return v * 3; } };
}
static int lone(int x) { return x - 1; }
int main() { ns::K k; return ns::over(1) + ns::over(2.0) + k.m(4) + lone(3); }
"""


def test_rbreak_cplus_overloads(tmp_path: Path) -> None:
    """Each overload its own breakpoint, at that overload alone (a POSIX `\\|` too)."""
    (tmp_path / "c.cc").write_text(CXX)
    subprocess.run(["g++", "-g", "-O0", "-o", "cprog", "c.cc"], cwd=tmp_path, check=True, timeout=120)
    got = assert_like_gdb([*ex(r"rbreak ^ns::\|^lone", "info breakpoints"), "cprog"], tmp_path)
    assert "int ns::over(double);" in got.stdout and "<MULTIPLE>" not in got.stdout


CLONED = """#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static __attribute__((noinline)) char *mk(const char *s, long n)
{
  if (n < 0)
    return 0;
  char *p = malloc(n + 1);
  if (s)
    memcpy(p, s, n);
  p[n] = 0;
  printf("%ld\\n", n);
  return p;
}

int main(int c, char **v)
{
  return mk(0, c)[0] + mk(0, c + 1)[0] + mk(0, c + 2)[0];
}
"""


def test_clone_parameters_in_its_order(tmp_path: Path) -> None:
    """gcc's mk.constprop.0 (s always 0) lists n first, then the constant s: gdb's type
    of the function is that copy's parameters in their order (read_subroutine_type)."""
    (tmp_path / "m.c").write_text(CLONED)
    subprocess.run(["gcc", "-g", "-O2", "-o", "m", "m.c"], cwd=tmp_path, check=True, timeout=120)
    commands = ["info functions ^mk$", "rbreak ^mk$", "whatis mk", "print mk"]
    got = assert_like_gdb([*ex(*commands), "m"], tmp_path)
    assert "static char *mk(long, const char *);" in got.stdout


def test_bad_regexes_in_gdbs_words(program: Path) -> None:
    """gdb 13's regcomp (libiberty's): its messages, and `\\{` an interval, never a brace."""
    commands = ["rbreak \\(", "rbreak \\)", "rbreak [", "rbreak a\\{", "rbreak x\\{a\\}"]
    commands.append("info functions ^ma\\{0,2\\}in$")
    got = assert_like_gdb([*ex(*commands), str(program)], program.parent)
    assert "Unmatched [ or [^" in got.stderr and "Unmatched \\{" in got.stderr


def _rows(mi: MiClient) -> list[tuple[object, ...]]:
    """-break-list's breakpoints and their locations: number, address, function, file, line."""
    table = mi.ok("-break-list").results["BreakpointTable"]
    assert isinstance(table, Tuple) and isinstance(table["body"], List)
    rows: list[tuple[object, ...]] = []
    for bkpt in table["body"].values:
        assert isinstance(bkpt, Tuple)
        locations = bkpt.get("locations")
        for row in [bkpt, *(locations.values if isinstance(locations, List) else ())]:
            assert isinstance(row, Tuple)
            keys = ("number", "addr", "func", "file", "line", "at")
            rows.append(tuple(row.get(key) for key in keys))
    return rows


def _session(program: Path, *, gdb: bool, run: bool) -> tuple[list[str], list[tuple[object, ...]]]:
    """rbreak's console text and the -break-list after it, under gdb or us."""
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb, env=gdb_env())
    try:
        mi.prompt()
        if run:
            mi.ok("-break-insert main")
            mi.ok("-exec-run")
            mi.stopped()
            mi.prompt()
            mi.ok("-break-delete 1")  # (gdb notes another breakpoint at a pc: not rbreak's point)
        quoted = NAMES.replace("\\", "\\\\")  # in an MI C string
        _result, seen = mi.command(f'-interpreter-exec console "rbreak {quoted}"')
        return [line for line in seen if line.startswith("~")], _rows(mi)
    finally:
        mi.close()


@pytest.mark.parametrize("run", [False, True], ids=["before-run", "at-main"])
def test_rbreak_break_list(program: Path, run: bool) -> None:
    ours = _session(program, gdb=False, run=run)
    assert ours == _session(program, gdb=True, run=run)
    assert any(row[2] == "heavy" for row in ours[1])
    assert not any("heavy.part" in line for line in ours[0])
