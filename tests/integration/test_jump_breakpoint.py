"""`jump` to a line with a breakpoint reports that breakpoint at once (ours stepped over
it, as a continue does, and ran on to the program's exit); jumping to the breakpoint the
program stopped at hits it again, while `set var $pc = $pc` and `continue` steps over it.
Compared with gdb, natively and through a gdbserver (gdb.base/jump.exp's cases), and
gdb's error for a number after the line (`jump 16 100`)."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, output_like_gdb, theirs
from tests.support.build import Builder, marker_line
from tests.support.gdbserver import gdbserver

pytestmark = [needs_gdb, pytest.mark.timeout(120)]

SOURCE = "jump_hits.c"
Run = Callable[[list[str], Path], "subprocess.CompletedProcess[str]"]


def _commands() -> list[str]:
    start, call, after = (marker_line(SOURCE, name) for name in ("start", "call", "after"))
    return ["break main", "run", f"break {after}", f"jump {after}", f"break {call}", f"jump {call}",
            "disable 3", f"jump {call}", f"jump {start}", "set var $pc = $pc", "continue", "continue"]


@pytest.fixture
def program(builder: Builder) -> Path:
    return builder.build("jump_hits")


def test_jump_to_a_breakpoint_hits_it(program: Path) -> None:
    got = output_like_gdb(program, _commands())
    assert got.count("Breakpoint 2, main ()") == 3 and got.count("Breakpoint 1, main ()") == 2


def test_jump_to_a_breakpoint_over_gdbserver(program: Path, tmp_path: Path) -> None:
    def console(run: Run) -> str:
        with gdbserver(program) as server:
            commands = ["continue" if command == "run" else command for command in _commands()]
            done = run(["-batch", "-nx", *ex("set sysroot /", f"target remote {server.address}", *commands),
                        str(program)], tmp_path)  # fmt: skip
        text = normalized(done.stdout + "\n--stderr--\n" + done.stderr)
        return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text)

    alice = console(ours)
    assert alice == console(theirs)
    assert alice.count("Breakpoint 2, main ()") == 3


def test_a_number_after_the_line_is_named_a_number(program: Path) -> None:
    # gdb's linespec lexer: a number token (ours called every trailing word a string)
    call = marker_line(SOURCE, "call")
    got = output_like_gdb(program, ["break main", "run", f"jump {call} 100", f"break {call} -5, 2", f"break {call} 100x",
                                    f"break {call} 1.5", f"tbreak {SOURCE}:{call} 7 8"])  # fmt: skip
    assert 'unexpected number, "100"' in got and 'unexpected string, "100x"' in got
