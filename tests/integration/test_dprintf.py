"""gdb's printf and dynamic printf against gdb 13 on one program (printf_values.c): printf's
conversions and errors on the console, `dprintf` printing at each hit without stopping and
shown by info breakpoints, MI's -dprintf-insert records and what a hit writes, and the
dprintf styles gdb has that aliceserver refuses."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.gdb_calls import assert_like_gdb_calls
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(180)]
SOURCE = "printf_values.c"


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("printf_values")


def test_printf_conversions_like_gdb(prog: Path) -> None:
    # "lit" goes into the program by its malloc: where gdb cannot call, its line stops there.
    got = assert_like_gdb_calls(ex(
        "break main", "run",
        'printf "%d %i %u %x %X %o|%5d|%-5d|%05d|%#o|%+d\\n", negative, negative, negative, negative, '
        "negative, negative, 42, 42, 42, 8, 5",
        'printf "%s|%10s|%-6s|%.2s|%s|%s\\n", message, message, letters, message, "lit", 0',
        'printf "%f %e %g %.2f %10.3f %E\\n", ratio, ratio, ratio, half, ratio, ratio',
        'printf "%ld %lu %lx %lld %zu %hd|%c%c|%p|%-8p|%%\\n", big, big, big, big, 3, negative, 65, letters[1], '
        "nowhere, 0",
        'printf "%d %d %d\\n", message != 0, ratio, 1.9',
        'printf "%d %s\\n", ratio, negative',  # the text before a string it cannot read
        'printf "%f\\n", negative',  # an int's bytes read as a float
        'printf "%d\\n", nosuch', 'printf "%d\\n"', 'printf "%d\\n", 1, 2', 'printf "%y\\n", 1',
        'printf "%hhd\\n", 1', 'printf "%lf\\n", ratio', 'printf "%*d\\n", 1, 2', 'printf "%n\\n", 1',
        'printf "abc', "printf abc", "printf", 'printf "a\\qb"', 'printf "x" y',
        'printf "tab\\there \\"quoted\\" back\\\\slash\\n"',
    ) + [str(prog)], prog.parent, {}, replaced={"abc   |he|": "abc   |he|lit|(null)\n"})
    assert "-7 -7 4294967289 fffffff9 FFFFFFF9 37777777771|   42|42   |00042|010|+5\n" in got.stdout
    assert "hello|     hello|abc   |he|lit|(null)\n" in got.stdout


def test_dprintf_prints_at_each_hit_and_goes_on(prog: Path) -> None:
    got = assert_like_gdb(ex(
        'dprintf accumulate,"step=%d total=%d %s\\n", step, total, message',
        f'dprintf {SOURCE}:{marker_line(SOURCE, "done")},"at the end %d\\n",total',
        "break accumulate if step == 30", "run", "info breakpoints", "continue",
        "dprintf accumulate", "dprintf", 'dprintf accumulate,nope',
    ) + [str(prog)], prog.parent)
    assert "step=10 total=0 hello\nstep=20 total=10 hello\nstep=30 total=30 hello\n" in got.stdout
    assert "at the end 60\n" in got.stdout
    assert "\tbreakpoint already hit 3 times\n        printf \"step=%d total=%d %s\\n\", step, total, message\n" \
        in got.stdout


def test_dprintf_style_settings_like_gdb(prog: Path) -> None:
    """All three styles are taken now (test_dprintf_styles.py runs them); a bad one is not."""
    got = assert_like_gdb([*ex("show dprintf-style", "set dprintf-style call", "set dprintf-style agent",
                               "set dprintf-style nope", "set dprintf-channel stderr", "show dprintf-channel",
                               "set dprintf-style gdb", "show dprintf-style"), str(prog)], prog.parent)
    assert 'Undefined item: "nope".' in got.stderr


_NOISE = re.compile(r',core="\d+"|0x0000[0-9a-f]+|/[^"]*/(?=printf_values\.c")')


def _mi_records(program: Path, commands: Sequence[str], *, gdb: bool) -> list[str]:
    client = MiClient(["-i=mi", "-q", "-nx", str(program)] if gdb else ["-i=mi", "-q", str(program)],
                      cwd=program.parent, gdb=gdb)
    try:
        client.prompt()
        client.ok("-break-insert main")
        client.ok("-exec-run")
        client.stopped()
        mark = len(client.lines)
        for command in commands:
            result, _ = client.command(command)
            if command.startswith("-exec-") and result.cls == "running":
                client.stopped()
        wanted = ("^", "=breakpoint", "*stopped", "~")
        return [_NOISE.sub("", re.sub(r"^\d+\^", "^", line)) for line in client.lines[mark:]
                if line.lstrip("0123456789").startswith(wanted)]
    finally:
        client.close()


def test_mi_dprintf_insert_and_its_hits(prog: Path) -> None:
    done = marker_line(SOURCE, "done")
    commands = [
        "-dprintf-insert", "-dprintf-insert accumulate", f"-dprintf-insert {done}",
        '-dprintf-insert --source printf_values.c "hello"',
        '-dprintf-insert accumulate "\\"quoted\\" step=%d\\n" step',
        '-dprintf-insert -t -c "step > 10" --function accumulate "late %d %d\\n" step total',
        f"-break-insert {SOURCE}:{done}", "-break-info 3", "-exec-continue",
    ]
    theirs = _mi_records(prog, commands, gdb=True)
    got = _mi_records(prog, commands, gdb=False)
    assert got == theirs
    assert '~"late 20 10\\n"' in got and '~"\\"quoted\\" step=30\\n"' in got
    assert not any(line.startswith("=breakpoint-deleted") for line in got)  # a temporary dprintf stays


def test_mi_break_info_lists_like_info_breakpoints(prog: Path) -> None:
    """gdb 13's -break-info takes info breakpoints' arguments: none is the whole table."""
    commands = ["-break-insert accumulate", '-dprintf-insert main "x\\n"', "-break-info", "-break-info 1 2",
                "-break-info 2-3", "-break-info 7", "-break-info x"]
    theirs = _mi_records(prog, commands, gdb=True)
    got = _mi_records(prog, commands, gdb=False)
    assert got == theirs
    assert got[-1] == "^error,msg=\"Arguments must be numbers or '$' variables.\""


def test_printf_of_a_convenience_string_like_gdb(prog: Path) -> None:
    """printf's %s of a convenience variable holding a char array (printcmds.exp's $cstr):
    its bytes up to the first NUL, which live in no memory, before and after `run`."""
    strings = ('set var $cstr = "abcde"', 'printf "cstr val = %s\\n", $cstr', 'set $e = ""', 'printf "[%s]\\n", $e',
               'set $n = "ab\\0cd"', 'printf "[%s]\\n", $n', 'printf "[%5s|%-4s]\\n", $cstr, $e')
    got = assert_like_gdb(ex(*strings, "break main", "run", *strings[1:]) + [str(prog)], prog.parent)
    assert got.stdout.count("cstr val = abcde") == 2


def test_eval_like_gdb(prog: Path) -> None:
    """gdb's eval (printcmds.exp's indirect print): printf's text, then run as a command."""
    got = assert_like_gdb(ex(
        "set $abcde = 7", 'set $cstr = "abcde"', 'eval "print $%s\\n", $cstr', 'eval "echo %d\\\\n", 5', "eval",
        'eval "print %d", 1+1', 'eval "nosuchcmd"', 'eval "print %d\\n", nosuch', 'eval "p 1"',
    ) + [str(prog)], prog.parent)
    assert "$1 = 7" in got.stdout
