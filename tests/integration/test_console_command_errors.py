"""What the console command fuzz (tests/fuzz/test_fuzz_console_commands.py) found: lines
that ended in an internal error instead of gdb's error. `up`/`down` took their count with
int() (gdb evaluates it), `file "abc` fed an unclosed quote to shlex (gdb's buildargv takes
the rest of the line), and a linespec ending with its fourth colon indexed an empty word."""

from __future__ import annotations

import pytest

from tests.support.batch import ex, needs_gdb, ours, theirs
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(120)]



def test_up_down_and_file_errors_like_gdb(builder: Builder) -> None:
    prog = builder.build("mi_prog", flags=("-g", "-O0"))
    errors = ["up xyz", "down /x", "up 'x", "down --", 'file "nosuch', "exec-file 'nosuch"]
    args = ["-batch", "-nx", *ex("break add", "run", *errors), str(prog)]
    expected, got = theirs(args, prog.parent), ours(args, prog.parent)
    assert got.stderr.splitlines()[-len(errors):] == expected.stderr.splitlines()[-len(errors):]
    assert "Internal error" not in got.stderr


def test_linespec_ending_in_a_colon_is_an_error(builder: Builder) -> None:
    prog = builder.build("mi_prog", flags=("-g", "-O0"))
    got = ours(["-batch", "-nx", *ex("break add", "run", "advance a:b:c:", "break x:y:z:"), str(prog)],
               prog.parent)
    assert got.stderr.splitlines()[-2:] == ["malformed linespec error: unexpected end of input"] * 2
