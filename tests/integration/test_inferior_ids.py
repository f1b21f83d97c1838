"""gdb's inferior-qualified thread ids (`1.1`) and its inferior commands, with the one
inferior aliceserver debugs: `thread 1.1`, `info threads ID...`, `inferior [N]`,
`info inferiors [N]`, `add-inferior`, `remove-inferiors`, each compared with gdb 13 in the
same run; a second live process and `clone-inferior` are refused; MI `-thread-select`
reads its argument as gdb 13 does (a value: `1.2` is thread 1)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, normalized, ours, theirs
from tests.support.build import Builder
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import List, Tuple

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


def test_inferiors_without_a_process_like_gdb(prog: Path) -> None:
    out = _assert_like_gdb(prog, [
        "add-inferior", "info inferiors", "inferior 2", "info inferiors", "thread 2.1", "thread 1.1",
        "thread 3.1", "inferior", f"file {prog}", "inferior 1", "remove-inferiors 1",
        f"add-inferior -exec {prog}", "add-inferior -copies 2", "info inferiors", "remove-inferiors 3 4",
        "info inferiors 2 5", "inferior 2", "run", "info inferiors", "info threads",
        "inferior 1", "thread", "add-inferior", "remove-inferiors 2", "info inferiors",
    ])  # fmt: skip
    assert "Added inferior 2\n" in out and "[Switching to inferior 2 [<null>] (<noexec>)]" in out


def test_inferiors_beside_a_process_like_gdb(prog: Path) -> None:
    out = _assert_like_gdb(prog, [
        "break main", "run", "add-inferior", "info inferiors", "inferior 2", "thread", "info threads",
        "thread 1.1", "inferior 2", "remove-inferiors 1", "inferior 1", "remove-inferiors 2", "info inferiors",
    ])  # fmt: skip
    assert "Added inferior 2 on connection 1 (native)" in out
    assert "[Switching to thread 1.1 (" in out


def test_a_second_live_process_is_refused(prog: Path) -> None:
    got = ours(["-batch", "-nx", "-ex", "break main", "-ex", "run", "-ex", "add-inferior", "-ex", "inferior 2",
                "-ex", f"file {prog}", "-ex", "run", "-ex", "clone-inferior", str(prog)], prog.parent)
    pid = re.search(r"\[Inferior 1 \(process (\d+)\)|process (\d+)\]", got.stdout + got.stderr)
    assert got.stderr.splitlines()[-2:] == [
        f"Cannot run inferior 2: inferior 1 [process {pid and (pid[1] or pid[2])}] is live, and aliceserver "
        "debugs one process at a time. Kill or detach it first.",
        '"clone-inferior" is not supported: aliceserver copies no inferior; use add-inferior and file.',
    ]


def test_mi_add_inferior_like_gdb(prog: Path) -> None:
    answers = []
    for gdb in (True, False):
        mi = MiClient(["-i=mi", "-q", "-nx", str(prog)], cwd=prog.parent, gdb=gdb)
        try:
            mi.prompt()
            quiet = mi.ok("-add-inferior --no-connection")
            mi.ok("-break-insert main")
            mi.ok("-exec-run")
            mi.stopped()
            connected = mi.ok("-add-inferior")
            groups = mi.ok("-list-thread-groups").results.get("groups")
            assert isinstance(groups, List)
            answers.append((quiet.results, connected.results,
                            [(g.get("id"), g.get("pid") is not None) for g in groups.values if isinstance(g, Tuple)],
                            mi.ok("-list-thread-groups i2").results))
        finally:
            mi.close()
    assert answers[1] == answers[0]
    assert answers[1][1].get("inferior") == "i3" and answers[1][1].get("connection") is not None
    assert answers[1][2] == [("i1", True), ("i2", False), ("i3", False)]


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
