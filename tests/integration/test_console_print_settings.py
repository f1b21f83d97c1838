"""`set print nibbles`, `set print symbol` and `set print null-stop` against gdb 13 on the
same programs: they were refused (printcmds.exp's 50 nibbles tests among them). Nibbles
group /t's digits by four (print, output, array indexes, x) with the current language's
separator (C++'s ' in a C++ frame, a blank in a C one); symbol off drops a data pointer's
<symbol> (a function's and /a's stay); null-stop ends a char array at its first NUL."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.mi_script import both

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

C_SOURCE = r"""
int three = 3;
int gi = 0x70f;
unsigned char arr[8] = {0x30, 0xff, 1, 0, 0x0f, 0xf0, 0x70, 0};
char a2[8] = "ab\0cd";
char big[6] = "abcdef";
struct s { int x; char name[8]; } gs = {0x30, "xy\0z"};
int *pi = &three;
char *str = "hello";
int (*fp)(void);
int cfunc(int x) { return x + gs.x; }
int main(void) { fp = (int (*)(void))main; return cfunc(a2[0]); }
"""

CXX_SOURCE = r"""
extern "C" int cfunc(int);
int g = 0x30;
int main() { return cfunc(g); }
"""


def _compile(tmp_path: Path, compiler: str, name: str, source: str) -> Path:
    path = shutil.which(compiler)
    if path is None:
        pytest.skip(f"{compiler} not installed")
    (tmp_path / name).write_text(source)
    subprocess.run(
        [path, "-g", "-O0", "-c", "-o", str(tmp_path / f"{name}.o"), str(tmp_path / name)],
        check=True,
    )
    return tmp_path / f"{name}.o"


@pytest.fixture
def program(tmp_path: Path) -> Path:
    c_object = _compile(tmp_path, "gcc", "settings.c", C_SOURCE)
    subprocess.run(["gcc", "-o", str(tmp_path / "settings"), str(c_object)], check=True)
    return tmp_path / "settings"


NIBBLES = ["p/t 0x70f", "p/t gi", "p/t arr", "x/4tb arr", "x/tw arr", "p/t -1", "p/t (char)1", "output/t 0x30",
           "echo \\n", "p/t gs", "p/t 1.5", "p/t 0", "show print nibbles", 'p $_gdb_setting_str("print nibbles")',
           "set print array-indexes on", "p/t arr", "set print array-indexes off"]  # fmt: skip


def test_nibbles_like_gdb(program: Path, tmp_path: Path) -> None:
    got = assert_like_gdb([*ex(
        "show print nibbles", "set print nibbles on", *NIBBLES, "break cfunc", "run", "p/t x",
        "set print nibbles off", "p/t 0x30", "x/2tb arr", "p -nibbles on -- /t 0x30", "p -nibbles -- /t 0xf0f",
        "p/t 0x30"), str(program)], tmp_path)  # fmt: skip
    assert "$1 = 0111 0000 1111" in got.stdout


def _mixed(tmp_path: Path) -> Path:
    """A C++ main calling a C function."""
    c_object = _compile(tmp_path, "gcc", "cpart.c", "int cfunc(int x) { return x + 1; }\n")
    cxx_object = _compile(tmp_path, "g++", "main.cc", CXX_SOURCE)
    gxx = shutil.which("g++")
    assert gxx is not None
    subprocess.run([gxx, "-o", str(tmp_path / "mixed"), str(cxx_object), str(c_object)], check=True)
    return tmp_path / "mixed"


def test_nibbles_take_the_frames_language(tmp_path: Path) -> None:
    _mixed(tmp_path)
    got = assert_like_gdb([*ex(
        "set print nibbles on", "p/t g", "break cfunc", "run", "p/t x", "up", "p/t g", "x/tw &g", "down",
        "p/t x", "output/t x"), str(tmp_path / "mixed")], tmp_path)  # fmt: skip
    assert "$1 = 0011'0000" in got.stdout and "$2 = 0011 0000" in got.stdout


def test_nibbles_over_mi_take_the_evaluation_frames_language(tmp_path: Path) -> None:
    """A variable object is evaluated in its own frame: its separator is that frame's
    language's, whichever frame is selected."""
    program = _mixed(tmp_path)
    commands = ["-gdb-set print nibbles on", "-break-insert cfunc", "-exec-run", "-var-create a * x",
                "-var-set-format a binary", "-stack-select-frame 1", "-var-create v * g", "-var-set-format v binary",
                "-var-evaluate-expression a", "-var-evaluate-expression v", '-interpreter-exec console "output/t g"',
                "-stack-select-frame 0", '-interpreter-exec console "output/t x"']  # fmt: skip
    expected, got = both(program, commands, tmp_path)
    assert (
        got[2:] == expected[2:]
    )  # (after `Reading symbols from`, which names the program as given)
    assert '^done,value="0011 0000"' in got and '~"0011\'0000"' in got


def test_symbol_and_null_stop_like_gdb(program: Path, tmp_path: Path) -> None:
    commands = ["p a2", "p big", "p gs", "p pi", "p &three", "p str", "p fp", "p main", "p/a pi", "p &gs",
                "output pi", "echo \\n", "p &gs.name"]  # fmt: skip
    got = assert_like_gdb([*ex(
        "set print null-stop on", "p a2", "p big", "p gs", "set print elements 4", "p big", "p a2",
        "set print elements 200", "set print null-stop off", "p a2", "p -null-stop -- a2", "show print null-stop",
        "set print symbol off", *commands, "break cfunc", "run", "p pi", "p &three", "p fp", "frame",
        "show print symbol", "set print address off", *commands, "set print symbol on", *commands,
        "p -symbol off -- pi", "p pi"), str(program)], tmp_path)  # fmt: skip
    assert '$1 = "ab"' in got.stdout and "<three>" in got.stdout


UTF8_SOURCE = r"""
char u[] = "h\303\251llo\377";
char *us = "\303\251t\303\251 \342\202\254";
char reps[24] = "\303\251xxxxxxxxxxxxxxxxxxx";
char c = (char)0xe9;
int main(void) { return u[0] + us[0] + reps[0] + c; }
"""


@pytest.fixture
def utf8_program(tmp_path: Path) -> Path:
    c_object = _compile(tmp_path, "gcc", "utf8.c", UTF8_SOURCE)
    subprocess.run(["gcc", "-o", str(tmp_path / "utf8"), str(c_object)], check=True)
    return tmp_path / "utf8"


STRINGS = [
    "p u",
    "p us",
    "p reps",
    "p c",
    "x/s u",
    "x/s us",
    "x/2s reps",
    "output u",
    "echo \\n",
    "p/x u",
]


def test_target_charset_ascii_like_gdb(utf8_program: Path, tmp_path: Path) -> None:
    """gdb's with_target_charset (charset.exp, printcmds.exp): bytes past 127 in octal, UTF-8
    or not, until the charset is auto again."""
    got = assert_like_gdb([*ex(
        "set target-charset ASCII", "show target-charset", 'p $_gdb_setting_str("target-charset")', *STRINGS,
        "break main", "run", *STRINGS, "set target-charset auto", "set target-charset ASCII", "p us",
    ), str(utf8_program)], tmp_path)  # fmt: skip
    assert '"h\\303\\251llo\\377"' in got.stdout


def test_utf8_strings_like_gdb(
    utf8_program: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a UTF-8 host (auto, or a UTF-8 target charset) valid UTF-8 shows as text, x/s's
    too (it split a character's bytes, showing them in octal)."""
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    got = assert_like_gdb(
        [*ex(*STRINGS, "set target-charset UTF-8", *STRINGS), str(utf8_program)], tmp_path
    )
    assert '"héllo\\377"' in got.stdout


def test_sevenbit_strings_like_gdb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`set print sevenbit-strings` was refused: on, `show` of gdb's string settings writes
    their bytes past 127 in octal (gdb's printchar); their values stay as they were."""
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    got = assert_like_gdb(ex(
        "set prompt é(x) ", "show prompt", "set print sevenbit-strings", "show prompt", "show print sevenbit-strings",
        'p $_gdb_setting_str("prompt")', 'p $_gdb_setting("print sevenbit-strings")', "set trace-user ü",
        "show trace-user", "set print sevenbit-strings off", "show prompt", "show trace-user",
    ), tmp_path)  # fmt: skip
    assert 'Gdb\'s prompt is "\\303\\251(x) ".' in got.stdout


@pytest.mark.parametrize("lang", ["C.UTF-8", "C"])
def test_character_set_shows_say_what_auto_stands_for(
    utf8_program: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    """gdb's `show charset` (host, target and target wide), each `auto` with what it is
    now: the locale's character set (ANSI_X3.4-1968 in the C locale), UTF-32 for wide."""
    monkeypatch.setenv("LANG", lang)
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_CTYPE", raising=False)
    got = assert_like_gdb([*ex(
        "show charset", "show host-charset", "show target-charset", "show target-wide-charset",
        "set target-charset ASCII", "show charset",
    ), str(utf8_program)], tmp_path)  # fmt: skip
    expected = "UTF-8" if lang == "C.UTF-8" else "ANSI_X3.4-1968"
    assert f'The target character set is "auto; currently {expected}".' in got.stdout
    assert 'The target wide character set is "auto; currently UTF-32".' in got.stdout


def test_endian_is_shown_and_set_as_gdb_does(utf8_program: Path, tmp_path: Path) -> None:
    """`show endian` on x86-64 (automatic, little), `set endian little` and `auto` with
    gdb's lines and errors; `set endian big` is refused in our words (x86-64 only)."""
    commands = ["show endian", "set endian little", "show endian", "set endian auto", "show endian",
                "set endian foo", "set endian"]  # fmt: skip
    got = assert_like_gdb([*ex(*commands), str(utf8_program)], tmp_path)
    assert "The target endianness is set automatically (currently little endian).\n" in got.stdout
    assert "The target is set to little endian.\n" in got.stdout
