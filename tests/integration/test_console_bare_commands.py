"""gdb's commands typed with no arguments (gdb.base/default.exp), before a program runs and
while one is stopped: each one's own error words (`break`'s "No default breakpoint
address now.", `ptype` alone the last value's type), the commands a native target has
little use for but gdb answers (`overlay`, `load`, `section`, `add-symbol-file`, `info
terminal`, `target` and `unset` alone, `target native`), and `up-silently`,
`down-silently` and `do`."""

from __future__ import annotations

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, output_like_gdb, theirs
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_BARE = ["break", "tbreak", "clear", "commands", "jump", "ptype", "whatis", "restore", "down-silently",
         "up-silently", "do", "load", "section", "section .text 0x1000", "add-symbol-file", "info terminal",
         "info files", "target", "unset", "target native", "target exec", "info files"]
_OVERLAY = ["overlay", "overlay on", "overlay list", "overlay map", "overlay manual", "overlay map",
            "overlay map .text", "overlay unmap .text", "overlay unmap .nosuch", "overlay auto",
            "overlay load-target", "overlay l", "ov list", "ovly off", "overlay unmap .text"]


def test_bare_commands_without_a_program_like_gdb(builder: Builder) -> None:
    cwd = builder.build("mi_prog", flags=("-g", "-O0")).parent
    args = ["-batch", "-nx", *ex(*_BARE, *_OVERLAY, "p 5", "ptype", "whatis")]
    expected, got = theirs(args, cwd), ours(args, cwd)
    assert normalized(got.stdout) == normalized(expected.stdout)
    assert normalized(got.stderr) == normalized(expected.stderr)
    assert "No default breakpoint address now." in got.stderr


def test_bare_commands_with_a_program_like_gdb(builder: Builder) -> None:
    prog = builder.build("mi_prog", flags=("-g", "-O0"))
    bare = [command for command in _BARE[:-3] if command != "section .text 0x1000"]  # gdb moves it
    out = output_like_gdb(prog, [*bare, *_OVERLAY, "section .nosuch 4", "p counter", "ptype", "whatis",
                                 "file", "info files"])
    assert "Section .nosuch not found" in out


def test_bare_commands_in_a_stopped_program_like_gdb(builder: Builder) -> None:
    prog = builder.build("mi_prog", flags=("-g", "-O0"))
    output_like_gdb(prog, ["break add", "run", "up-silently", "p $pc", "frame", "down-silently", "frame",
                           "do", "up", "do", "jump", "restore", "info terminal", "commands",
                           "p 1", "ptype", "unset environment", "show paths", "show environment"])
    # gdb's load also re-reads the libraries (a line about the vDSO): its error only
    args = ["-batch", "-nx", *ex("break add", "run", "load"), str(prog)]
    expected, got = theirs(args, prog.parent), ours(args, prog.parent)
    assert got.stderr.splitlines()[-1:] == expected.stderr.splitlines()[-1:]
