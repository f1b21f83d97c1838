"""`return VALUE` (and MI's -exec-return VALUE, gdb's mi_cmd_exec_return: the same
return_command) as gdb 13 does it: VALUE is computed once in the popped frame (`return
counter++` adds one), cast to the function's return type (300 as an unsigned char is 44;
an enum's name, a bool, a pointer `&g`: the return type read off `int *(void)`), and is
what the caller gets in rax."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import gcc_program
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

SOURCE = r"""#include <stdio.h>
#include <stdbool.h>

enum color { RED, GREEN, BLUE = 7 };
int counter = 10;
int g = 42;

enum color f_enum (void) { return RED; }
bool f_bool (void) { return false; }
int *f_ptr (void) { return 0; }
int f_int (void) { return 0; }
unsigned char f_uchar (void) { return 0; }

int
main (void)
{
  enum color c = f_enum ();
  bool b = f_bool ();
  int *p = f_ptr ();
  int i = f_int ();
  unsigned char u = f_uchar ();
  printf ("c=%d b=%d p=%d i=%d u=%d counter=%d\n", c, b, p == &g, i, u, counter);
  return 0;
}
"""
FUNCTIONS = ("f_enum", "f_bool", "f_ptr", "f_int", "f_uchar")
VALUES = ("BLUE", "1", "&g", "counter++", "300")
EXPECTED = "c=7 b=1 p=1 i=10 u=44 counter=11"


@pytest.fixture()
def program(tmp_path: Path) -> Path:
    return gcc_program(tmp_path, "kinds", SOURCE)


def test_return_values_like_gdb(program: Path) -> None:
    session = ex(*(f"break {name}" for name in FUNCTIONS), "run")
    session += ex(*(command for value in VALUES for command in (f"return {value}", "continue")))
    args = ["-batch", "-nx", *session, str(program)]
    expected, got = theirs(args, program.parent), ours(args, program.parent)
    assert normalized(got.stdout) == normalized(expected.stdout)
    assert normalized(got.stderr) == normalized(expected.stderr)
    assert EXPECTED in got.stdout


def _mi_returns(program: Path, *, gdb: bool) -> list[object]:
    """-exec-return VALUE at each function: the frame it gives, and what the program printed."""
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb)
    seen: list[object] = []
    try:
        mi.prompt()
        for name in FUNCTIONS:
            mi.ok(f"-break-insert {name}")
        mi.ok("-exec-run")
        for value in VALUES:
            mi.stopped()
            frame = mi.ok(f"-exec-return {value}").results["frame"]
            seen.append(frame)
            mi.ok("-exec-continue")
        mi.read_until(lambda line: line.startswith("*stopped"))
        seen.append([line for line in mi.lines if line.startswith("c=")])
        return seen
    finally:
        mi.close()


def test_mi_return_values_like_gdb(program: Path) -> None:
    got = _mi_returns(program, gdb=False)
    assert got == _mi_returns(program, gdb=True)
    assert got[-1] == [EXPECTED]


NODEBUG_MAIN = r"""#include <stdio.h>
long func (void);

int
main (void)
{
  long t = func ();
  printf ("t=%ld\n", t);
  return 0;
}
"""
NODEBUG_FUNC = "long func (void) { return 0; }\n"


def test_return_without_debug_info_like_gdb(tmp_path: Path) -> None:
    """A function without debug info has no return type: a value without a cast is gdb's
    error, with one it is that type's; the query is of the "selected stack frame"."""
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc not installed")
    (tmp_path / "main.c").write_text(NODEBUG_MAIN)
    (tmp_path / "func.c").write_text(NODEBUG_FUNC)
    subprocess.run(
        [gcc, "-c", "-O0", "-o", str(tmp_path / "func.o"), str(tmp_path / "func.c")], check=True
    )
    subprocess.run([gcc, "-g", "-O0", "-o", str(tmp_path / "nodebug"), str(tmp_path / "main.c"),
                    str(tmp_path / "func.o")], check=True)  # fmt: skip
    session = ["-nx", "-q", "-iex", "set width 0"]
    session += ex("break func", "run", "return -1", "return (long) -1", "next", "continue", "quit")
    args = [*session, str(tmp_path / "nodebug")]
    expected, got = theirs(args, tmp_path), ours(args, tmp_path)
    assert normalized(got.stdout) == normalized(expected.stdout)
    assert normalized(got.stderr) == normalized(expected.stderr)
    assert "Make selected stack frame return now? (y or n)" in got.stdout and "t=-1\n" in got.stdout


CALLED = "int add (int a, int b) { return a + b; }\nint main (void) { return add (1, 2) - 3; }\n"
REFUSED = "Returning from a function called from GDB is not supported by aliceserver."


def test_return_from_a_called_function_refused(tmp_path: Path) -> None:
    """gdb pops a function called from GDB (stopped at a breakpoint) and its dummy frame,
    back in main; we cannot pop that frame yet: refused, in our words, before the query,
    and the session is as before (gdb's backtrace, and finish still ends in main)."""
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc not installed")
    (tmp_path / "called.c").write_text(CALLED)
    subprocess.run(
        [gcc, "-g", "-O0", "-o", str(tmp_path / "called"), str(tmp_path / "called.c")], check=True
    )
    before = ex("break main", "run", "break add", "print add(4,5)", "bt")
    program = str(tmp_path / "called")
    expected = normalized(theirs(["-batch", "-nx", *before, program], tmp_path).stdout)
    after = ex("return 7", "bt", "finish", "bt")
    got = ours(["-batch", "-nx", *before, *after, program], tmp_path)
    assert normalized(got.stdout).startswith(expected)
    assert REFUSED in got.stderr
    rest = normalized(got.stdout)[len(expected) :]
    assert "#1  <function called from gdb>" in rest and "Value returned is $1 = 9" in rest
    assert rest.rstrip().splitlines()[-1].startswith("#0  main () at ")
