"""Disassembly as gdb 13 shows it, against gdb on the same stop of disasm_forms.c: MI's
-data-disassemble in its modes (none given, 0-5, --opcodes, --source, ranges, -n) and
errors, the console's `disassemble` with /r /b /m /s and ranges, and `x/i`; rip-relative
operands carry gdb's `# 0x... <symbol>` comment."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, normalized, ours, theirs
from tests.support.build import Builder, marker_line
from tests.support.mi_client import mi_stopped_at

pytestmark = [needs_gdb, pytest.mark.timeout(180)]
SOURCE = "disasm_forms.c"

MI_COMMANDS = [
    '-data-disassemble -s $pc -e "$pc + 12"',  # no mode: mode 0
    '-data-disassemble -s $pc -e "$pc + 4" -- 1',  # the whole line's code, past the range
    '-data-disassemble -s $pc -e "$pc + 4" -- 3',
    '-data-disassemble -s $pc -e "$pc + 4" -- 4',  # cut at the range
    "-data-disassemble -a twice -- 5",
    "-data-disassemble -a main --source",
    "-data-disassemble -a main --opcodes display",
    f"-data-disassemble -f {SOURCE} -l 15 -n 0 -- 1",
    f"-data-disassemble -f {SOURCE} -l 15 -n 3 -- 4",
    f"-data-disassemble -f {SOURCE} -l 15 -n 5",
    '-data-disassemble -s $pc -e "$pc + 12" --opcodes none -- 1',
    "-data-disassemble -s $pc -f disasm_forms.c -- 0",
    "-data-disassemble -a main -n 3 -- 0",
    "-data-disassemble -a main -- 2 3",
    "-data-disassemble -a main --opcodes wrong",
    f"-data-disassemble -f {SOURCE} -l 900 -- 0",
]  # fmt: skip

CONSOLE_COMMANDS = [
    "disassemble /r", "disassemble /b $pc,+8", "disassemble /s twice", "disassemble /m main",
    "disassemble /s $pc,$pc+4", "disassemble /m $pc,$pc+4", "disassemble /rs", "disassemble /x",
    "disassemble /", "disassemble /ms", "disassemble 0", "x/4i $pc",
]  # fmt: skip


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("disasm_forms")


def _replies(prog: Path, gdb: bool) -> list[str]:
    replies = []
    with mi_stopped_at(prog, f"{SOURCE}:{marker_line(SOURCE, 'disasm')}", prog.parent, gdb=gdb) as client:
        for command in MI_COMMANDS:
            record, seen = client.command(command)
            replies.append(next(line for line in seen if "^" in line).split("^", 1)[1])
    return replies


def test_data_disassemble_like_gdb(prog: Path) -> None:
    expected, got = _replies(prog, gdb=True), _replies(prog, gdb=False)
    for command, want, have in zip(MI_COMMANDS, expected, got, strict=True):
        assert (command, have) == (command, want)


def test_console_disassemble_like_gdb(prog: Path) -> None:
    args = ["-batch", "-nx", "-ex", f"break {marker_line(SOURCE, 'disasm')}", "-ex", "run"]
    for command in CONSOLE_COMMANDS:
        args += ["-ex", "echo ---\\n", "-ex", command]
    expected, got = theirs([*args, str(prog)], prog.parent), ours([*args, str(prog)], prog.parent)
    want = normalized(expected.stdout + expected.stderr).split("---\n")[1:]
    have = normalized(got.stdout + got.stderr).split("---\n")[1:]
    for command, one, other in zip(CONSOLE_COMMANDS, want, have, strict=True):
        assert (command, other) == (command, one)
