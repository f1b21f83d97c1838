"""gdb's macro commands against gdb 13 for a program built without macro information:
info macro (and -a, --, a bad option), info macros, macro expand (the text unchanged),
expand-once (gdb's 'not implemented yet'), list, undef, the macro prefix's list, before
run and at a stop. A -g3 program's macros are refused, not answered as if there were
none."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb, ours

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

SOURCE = "#define ANSWER 42\nint main(void) { return ANSWER - 42; }\n"
COMMANDS = ["info macro FOO", "info macro -a FOO", "info macro -- FOO", "info macro -x FOO", "info macros",
            "info macros main", "macro expand FOO  +  1", "macro expand", "macro expand-once FOO",
            "macro exp-once x", "macro list", "macro", "macro undef X", "info macro", 'macro expand "a b"',
            "macro exp x", "macro exp1 x"]


def _build(tmp_path: Path, *flags: str) -> Path:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc not installed")
    (tmp_path / "macros.c").write_text(SOURCE)
    subprocess.run([gcc, *flags, "-O0", "-o", str(tmp_path / "macros"), str(tmp_path / "macros.c")], check=True)
    return tmp_path / "macros"


def test_macros_without_macro_information_like_gdb(tmp_path: Path) -> None:
    program = _build(tmp_path, "-g")
    got = assert_like_gdb([*ex(*COMMANDS, "break main", "run", *COMMANDS), str(program)], tmp_path)
    assert "The symbol `FOO' has no definition as a C/C++ preprocessor macro" in got.stdout


def test_macro_information_refused(tmp_path: Path) -> None:
    program = _build(tmp_path, "-g3")
    got = ours(["-batch", "-nx", *ex("break main", "run", "info macro ANSWER", "macro expand ANSWER"),
                str(program)], tmp_path)  # fmt: skip
    assert "not supported by aliceserver" in got.stderr
    assert "has no definition" not in got.stdout and "expands to" not in got.stdout
