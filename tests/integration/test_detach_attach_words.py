"""-target-detach's argument, MI's --thread-group option, `detach inferiors` and the
attach's refusals in gdb 13's words: 'Thread group is empty' for a pid without a process,
'Non-existent thread-group id '7'', 'Invalid thread group for the --thread-group option',
'warning: Inferior ID 1 is not running.', 'ptrace: No such process.' (ours said 'The program
is not being run.' or added the pid). Side by side with gdb, before a run and in one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, normalized
from tests.support.build import Builder
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_NO_PROCESS = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1
_COMMANDS = [
    "-target-detach 12345", "-target-detach i7", "-target-detach ix", "-target-detach 12x", "-target-detach i1",
    "-target-detach 1 2", "-target-detach --thread-group i2", "-exec-continue --thread-group i2",
    "-data-evaluate-expression --thread-group x 1", "-break-list --thread-group i5",
    '-interpreter-exec console "detach inferiors"', '-interpreter-exec console "detach inferiors 5"',
    '-interpreter-exec console "detach inferiors 1"', '-interpreter-exec console "detach i 1-2"',
    '-interpreter-exec console "detach inferiors x"', f"-target-attach {_NO_PROCESS}", "-inferior-tty-set /dev/null",
    f'-interpreter-exec console "attach {_NO_PROCESS}"', "-break-insert main", "-exec-run",
    "-target-detach 12345", '-interpreter-exec console "detach inferiors 1 3"', "info inferiors",
]  # fmt: skip


def _answers(program: Path, *, gdb: bool) -> list[str]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb)
    seen = []
    try:
        mi.prompt()
        for command in _COMMANDS:
            seen += [command, *mi.command(command)[1]]
            if command == "-exec-run":
                seen += mi.read_until(lambda line: line.startswith("*stopped"))
    finally:
        mi.close()
    kept = ("^", "&", "~", "-", "=thread-group-exited")
    shown = [normalized(line) for line in seen if line.lstrip("0123456789").startswith(kept)]
    return [line for line in shown if line]  # (gdb's libthread_db lines normalized away)


def test_detach_and_attach_words_like_gdb(builder: Builder) -> None:
    program = builder.build("exitcode")
    got = _answers(program, gdb=False)
    assert got == _answers(program, gdb=True)
    assert '101^error,msg="Thread group is empty"' in got
