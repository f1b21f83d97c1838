"""The end of a program debugged over gdbserver (`target remote | gdbserver - PROG`), as
gdb 13 tells it: killed by a signal, $_exitsignal is that signal and $_exitcode void; an
exit, $_exitcode its status and $_exitsignal void; `info program` says the program is not
being run. While it lives, $_thread is the thread's number and $_siginfo its last stop's
siginfo_t, which gdb reads with qXfer:siginfo:read."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder
from tests.support.gdbserver import gdbserver_path

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_AFTER = ("p $_exitcode", "p $_exitsignal", "p $_siginfo", "info program", "info inferiors")


def _pid_free(text: str) -> str:
    return re.sub(r"pid = \d+", "pid = N", normalized(text))


def _like_gdb(program: Path, cwd: Path, *commands: str, argument: str = "") -> str:
    target = f"target remote | {gdbserver_path()} - {program} {argument}".rstrip()
    args = ["-batch", "-nx", *ex("set sysroot /", target, *commands), str(program)]  # local files, as ours
    expected, got = theirs(args, cwd), ours(args, cwd)
    assert _pid_free(got.stdout) == _pid_free(expected.stdout)
    return got.stdout


def test_killed_by_a_signal(builder: Builder, tmp_path: Path) -> None:
    got = _like_gdb(builder.build("dies_by_signal"), tmp_path, "continue", "continue", *_AFTER)
    assert "Program terminated with signal SIGTERM" in got and "$2 = 15" in got


def test_exit_status(builder: Builder, tmp_path: Path) -> None:
    got = _like_gdb(builder.build("dies_by_signal"), tmp_path, "continue", *_AFTER, argument="x")
    assert "exited with code 03" in got and "$1 = 3" in got


def test_thread_and_siginfo_at_stops(builder: Builder, tmp_path: Path) -> None:
    at_stop = ("p $_thread", "p $_gthread", "p $_siginfo.si_signo", "p $_siginfo.si_code", "p $_siginfo.si_errno")
    got = _like_gdb(builder.build("dies_by_signal"), tmp_path, *at_stop, "ptype $_siginfo", "continue", *at_stop,
                    "p $_siginfo._sifields._kill.si_uid")  # fmt: skip
    assert "$3 = 5" in got and "$8 = 15" in got  # SIGTRAP at the first stop, then SIGTERM
