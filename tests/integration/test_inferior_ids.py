"""gdb's inferior-qualified thread ids (`1.1`) and its inferior commands, with the one
inferior aliceserver debugs: `thread 1.1`, `info threads ID...`, `inferior [N]`,
`info inferiors [N]`, `remove-inferiors`, each compared with gdb 13 in the same run;
`add-inferior` and `clone-inferior` are refused; MI `-thread-select` reads its argument
as gdb 13 does (a value: `1.2` is thread 1)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, normalized, ours, theirs
from tests.support.build import Builder
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("info_cmds")


def _same(text: str) -> str:
    return re.sub(r"LWP \d+", "LWP N", normalized(text))


def _assert_like_gdb(prog: Path, commands: list[str]) -> str:
    args = ["-batch", "-nx", *[arg for command in commands for arg in ("-ex", command)], str(prog)]
    expected, got = theirs(args, prog.parent), ours(args, prog.parent)
    assert _same(got.stdout) == _same(expected.stdout)
    assert _same(got.stderr) == _same(expected.stderr)
    return got.stdout + got.stderr


def test_inferior_commands_before_run_like_gdb(prog: Path) -> None:
    out = _assert_like_gdb(prog, [
        "inferior", "inferior 1", "inferior 2", "info inferiors", "info inferiors 2",
        "info inferiors x", "info threads", "info threads 1", "thread 1.1", "remove-inferiors",
        "remove-inferiors 1 2",
    ])  # fmt: skip
    assert "[Current inferior is 1 [<null>]" in out


def test_thread_ids_and_inferiors_of_a_process_like_gdb(prog: Path) -> None:
    out = _assert_like_gdb(prog, [
        "break main", "run", "thread 1.1", "thread 1", "thread 1.2", "thread 2.1", "thread 0",
        "thread 1.x", "info threads 1.1", "info threads 1.1 2-3", "info threads 2", "info threads 2.1",
        "info threads 1.x", "info threads 1.*", "thread apply 1.1 bt", "inferior", "inferior 1",
        "inferior 0", "info inferiors", "info inferiors 1", "remove-inferiors 1",
    ])  # fmt: skip
    assert "[Switching to inferior 1 [process" in out
    assert "Unknown thread 1.2." in out


def test_another_inferior_is_refused(prog: Path) -> None:
    got = ours(["-batch", "-nx", "-ex", "add-inferior", "-ex", "clone-inferior", str(prog)], prog.parent)
    assert got.stderr.splitlines() == [
        '"add-inferior" is not supported: aliceserver debugs one inferior.',
        '"clone-inferior" is not supported: aliceserver debugs one inferior.',
    ]


def test_mi_thread_select_takes_a_value_like_gdb(prog: Path) -> None:
    answers = []
    for gdb in (True, False):
        mi = MiClient(["-i=mi", "-q", "-nx", str(prog)], cwd=prog.parent, gdb=gdb)
        try:
            mi.prompt()
            mi.ok("-break-insert main")
            mi.ok("-exec-run")
            mi.stopped()
            answers.append((mi.ok("-thread-select 1.2").results["new-thread-id"],
                            mi.error("-thread-select 9.5")))
        finally:
            mi.close()
    assert answers[1] == answers[0]
    assert answers[1][0] == "1"
