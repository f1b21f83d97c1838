"""Names in expressions as gdb 13 reads them, against gdb on programs built here.

In C a struct, union or enum tag is not an ordinary identifier: `point` alone is no type
when only `struct point` exists (gdb: No symbol "point" in current context), and a bare
`sigaction` is libc's function, not `struct sigaction`. In C++ the tag is a type name. gdb
looks each name up as it parses it, so an unknown name before a syntax error is the error
it gives; a `)` without its `(` ends the expression (Junk after end of expression)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_C = """\
#include <signal.h>
#include <string.h>
#include <time.h>
struct point { int x, y; };
typedef struct point point_t;
enum color { RED, GREEN };
union u { int i; float f; };
int point_count(struct point *p) { return p->x; }
int main(void) {
  struct point p = {1, 2};
  enum color c = GREEN;
  union u v = {3};
  struct timespec ts = {0, 0};
  struct sigaction sa;
  point_t q = p;
  memset(&sa, 0, sizeof sa);
  sigaction(SIGUSR1, &sa, 0);
  return point_count(&p) + c + v.i + (int)ts.tv_sec + q.y - 4;
}
"""

_CXX = """\
struct point { int x, y; };
enum color { RED, GREEN };
int main() {
  point p = {1, 2};
  color c = GREEN;
  return p.x + c - 2;
}
"""

# Each asked before `run` (the language of main's unit) and at a stop in main.
_C_NAMES = (
    "whatis point", "ptype point", "print sizeof(point)", "print (point *)0", "whatis color",
    "ptype color", "whatis u", "whatis timespec", "print sizeof(timespec)", "whatis point_t",
    "print sizeof(struct point)", "whatis struct point", "print (enum color)1",
    "whatis (struct timespec *)0",
)  # fmt: skip
_SYNTAX = (
    "print nosuch )", "print (nosuch *)0", "print 1 + nosuch )", "print nosuch 1", "print sizeof(nosuch *)",
    "print 1 )", "print (1 ))", "print 1, 2 )", "whatis int )", "ptype struct point )",
    "print sizeof(int) )", "print point_count )", "print point_count 1", "print $nosuch )", "print 1 +",
    "print (struct point *)0 + )",
)  # fmt: skip


def _build(where: Path, name: str, source: str, compiler: str) -> Path:
    suffix = ".cc" if compiler == "g++" else ".c"
    (where / (name + suffix)).write_text(source)
    subprocess.run([compiler, "-g", "-O0", "-o", name, name + suffix], cwd=where, check=True)
    return where / name


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    where = tmp_path_factory.mktemp("c_names")
    return _build(where, "cprog", _C, "gcc"), _build(where, "cxxprog", _CXX, "g++")


def test_c_tags_are_no_bare_type_names(programs: tuple[Path, Path]) -> None:
    prog = programs[0]
    commands = ex(
        *_C_NAMES, "break main", "run", *_C_NAMES, "print p", "whatis q", "whatis (time_t)1"
    )
    assert_like_gdb([*commands, str(prog)], prog.parent)


def test_c_function_named_like_a_struct(programs: tuple[Path, Path]) -> None:
    """libc's sigaction, a function and a struct tag: the function in a C frame."""
    prog = programs[0]
    commands = ex(
        "break main",
        "run",
        "whatis sigaction",
        "ptype struct sigaction",
        "print sizeof(struct sigaction) > 0",
        "info symbol sigaction",
        "output sigaction == sigaction",
    )
    assert_like_gdb([*commands, str(prog)], prog.parent)


def test_cxx_tags_are_type_names(programs: tuple[Path, Path]) -> None:
    prog = programs[1]
    commands = ex(
        "break main",
        "run",
        "whatis point",
        "ptype point",
        "print sizeof(point)",
        "print (point *)0",
        "whatis color",
        "print (color)1",
    )
    assert_like_gdb([*commands, str(prog)], prog.parent)


def test_unknown_name_before_a_syntax_error(programs: tuple[Path, Path]) -> None:
    prog = programs[0]
    commands = ex(*_SYNTAX, "break main", "run", *_SYNTAX, "print p.x )", "output p )")
    assert_like_gdb([*commands, str(prog)], prog.parent)
