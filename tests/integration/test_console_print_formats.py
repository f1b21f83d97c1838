"""print's, call's and output's /FMT against gdb 13 on the same program (printcmd.c's
decode_format, validate_format and print_scalar_formatted): a letter gdb knows no format of
(`$1 = Undefined output format "k".`), size letters, counts and /i refused in gdb's words,
/r and / alone taking print's last format again, /f reading an integer's bits as a float
of its length, /s as print's natural format (display.exp's print/k, print/0, print/r)."""

from __future__ import annotations

import platform
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

SOURCE = r"""
#include <wchar.h>
enum e { E1 = 1, E2 = 0x40490fdb };
enum e ev = E2;
int gi = 0x40490fdb;
long long gl = 0x400921fb54442d18LL;
short sh = 0x3c00;
char ch = 'A';
unsigned char uarr[4] = {65, 66, 0, 67};
char a2[8] = "ab\0cd";
wchar_t wa[4] = L"ab";
__int128 i128 = 5;
_Bool b = 1;
double d = 1.5;
float fl = 2.5f;
_Complex double cd = 1.0 + 2.0i;
int *pi = &gi;
char *str = "hello";
struct { int x; char n[4]; } st = {0x40490fdb, "ab"};
unsigned char units[8] = {0x10, 0x80, 0xff, 0x7f, 0, 0x80, 0, 0x80};
int g(void) { return 1; }
int main(void) { return g(); }
"""


@pytest.fixture
def program(tmp_path: Path) -> Path:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc not installed")
    (tmp_path / "formats.c").write_text(SOURCE)
    cet = (
        ["-fcf-protection"] if platform.machine() == "x86_64" else []
    )  # functions start with endbr64: 0xf3
    subprocess.run(
        [gcc, "-g", "-O0", *cet, "-o", str(tmp_path / "formats"), str(tmp_path / "formats.c")],
        check=True,
    )
    return tmp_path / "formats"


LETTERS = [f"print/{letter} gi" for letter in "acdefjklnopqstuvxyz"]
DECODING = [
    "print/k", "output/k gi", "call/k gi", "print/r gi", "print/x gi", "output/r gi", "echo \\n", "call/r gi",
    "print/r gi", "print/xb gi", "print/b gi", "print/ib gi", "print/2i gi", "print/x", "print /x 5", "print/X 5",
    "print/x5", "print/k str", "print $", "print/d", "print/", "print/ ", "print -pretty -- /x gi", "p/r",
    "print/0 gi", "print/-x gi", "output/0 gi", "output/i gi", "call/2 gi", "print/1 gi", "print/k nosuch",
    "output/x", "print/xr gi", "print/rx gi", "print/k ev", "p $",
]  # fmt: skip
VALUES = ["gi", "gl", "sh", "ch", "uarr", "a2", "wa", "i128", "b", "d", "fl", "cd", "pi", "str", "st", "ev", "3",
          "3.5", "'A'", "(char)65"]  # fmt: skip


def test_print_format_letters_like_gdb(program: Path, tmp_path: Path) -> None:
    got = assert_like_gdb([*ex(*LETTERS, *DECODING), str(program)], tmp_path)
    assert "$4 = $5 = 3.14159274" in got.stdout and 'Undefined output format "k".' in got.stderr


def test_float_and_string_formats_like_gdb(program: Path, tmp_path: Path) -> None:
    commands = [f"print/{letter} {value}" for value in VALUES for letter in "fs"]
    got = assert_like_gdb(
        [*ex(*commands, "break main", "run", *commands[:8]), str(program)], tmp_path
    )
    assert "= 3.14159274" in got.stdout


FUNCTIONS = [f"print/{letter} main" for letter in "xdacfstzuo"] + [
    "output/x main",
    "output/a main",
    "p/x *main",
    "p/x g",
    "p main",
    "p/x &main",
    "p $",
]
EXAMINE_PRINTF = ["x/2ab units", "x/2ah units", "x/2aw units", "x/ag units", 'printf "%s|\\n", str',
                  'printf "%#o %#x %#X %#5x|%#-5o|%#x|%#o\\n", 0, 0, 0, 0, 0, 10, 10']  # fmt: skip


def test_functions_units_and_printf_like_gdb(program: Path, tmp_path: Path) -> None:
    """print/x of a function is its first byte (gdb's value of a function type, one byte
    long; /a and /c its error after `$N = `); x/a of a unit smaller than an address is
    signed; printf's %#x of 0 is 0; printf reads a string from the program before run."""
    commands = [*FUNCTIONS, *EXAMINE_PRINTF]
    got = assert_like_gdb([*ex(*commands, "break g", "run", *commands), str(program)], tmp_path)
    assert "$3 = " in got.stdout and "hello|" in got.stdout
