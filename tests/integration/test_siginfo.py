"""`$_siginfo`: gdb 13 shows the stopped thread's siginfo in a type of its own (linux-tdep.c:
`struct siginfo` with the `_sifields` union), read with PTRACE_GETSIGINFO. Ours said "Unable
to read siginfo" at every stop, and ptype/whatis saw no `$` values at all (`ptype $x`: void)."""

from __future__ import annotations

import re

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb, ours, theirs
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

LOOKS = ("print $_siginfo", "ptype $_siginfo", "whatis $_siginfo", "ptype $_siginfo._sifields",
         "whatis $_siginfo._sifields._pad", "ptype $_siginfo._sifields._timer.si_sigval",
         "whatis $_siginfo._sifields._sigchld.si_utime", "print sizeof($_siginfo)",
         "print $_siginfo._sifields._sigfault.si_addr", "print/x $_siginfo._sifields._pad",
         "print &$_siginfo", "print $_siginfo.nosuch", "print $_siginfo.si_signo + 1")



def _values(text: str) -> list[str]:
    """The printed values and types: a stop's frame line names glibc's source differently
    (gdb finds entry values in libc's frames that are no part of this test)."""
    return [line for line in text.splitlines() if re.match(r"(\$\d+ = |type = |\s|\})", line)]


def test_siginfo_at_a_breakpoint_stop_like_gdb(builder: Builder) -> None:
    prog = builder.build("raise_sig", flags=("-g", "-O0"))
    got = assert_like_gdb([*ex("break main", "run", *LOOKS, "set $x = 5", "ptype $x"), str(prog)],
                          prog.parent)
    assert "si_signo = 5" in got.stdout and "int _pad __attribute__ ((vector_size(28)));" in got.stdout


@pytest.mark.parametrize(("program", "argument", "signal_number"), [
    ("crash", "segv", 11),  # a fault: si_addr is the address written (0x10)
    ("raise_sig", "10", 10),  # raise(SIGUSR1): si_code SI_TKILL, si_pid the program's
])  # fmt: skip
def test_siginfo_at_a_signal_stop_like_gdb(builder: Builder, program: str, argument: str,
                                           signal_number: int) -> None:
    prog = builder.build(program, flags=("-g", "-O0"))
    first = "print $_siginfo._sifields._kill.si_pid"
    args = ["-batch", "-nx", *ex("handle SIGUSR1 stop print", f"run {argument}", first, *LOOKS), str(prog)]
    expected, got = _values(theirs(args, prog.parent).stdout), _values(ours(args, prog.parent).stdout)
    assert f"si_signo = {signal_number}" in "\n".join(got)
    assert _sender_hidden(got) == _sender_hidden(expected)


def _sender_hidden(lines: list[str]) -> list[str]:
    """The lines with the first value (si_pid: each run's own process for raise) written
    PID, in decimal and in hex (si_addr and /x show the same bytes)."""
    sender = int(lines[0].split(" = ")[1])
    return [re.sub(rf"\b({sender}|{sender:#x})\b", "PID", line) for line in lines]
