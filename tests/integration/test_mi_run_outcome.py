"""What MI tells of a run's outcome, side by side with gdb 13: -list-thread-groups shows the
last run's exit-code once the program has exited (none before a run, none while it runs);
a program whose exec fails starts and ends (`During startup program exited with code 127.`);
`startup-with-shell off` hands `run`'s words to the program split at blanks alone. Also
`show/set architecture`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, normalized, ours, theirs
from tests.support.build import Builder
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def exitcode(builder: Builder) -> Path:
    return builder.build("exitcode")


def _groups_through_two_runs(program: Path, gdb: bool) -> list[str]:
    """-list-thread-groups before a run, after a run exiting 0, during and after one exiting 8."""
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb)
    groups: list[str] = []

    def list_groups() -> None:
        lines = mi.command("-list-thread-groups")[1]
        found = [line for line in lines if "^done,groups=" in line]
        # the pid differs, and gdb adds cores= to a live process
        groups.append(re.sub(r',cores=\[[^]]*\]|pid="\d+"', "", found[0]))

    try:
        mi.prompt()
        list_groups()
        mi.ok("-exec-run")
        mi.stopped()
        list_groups()
        mi.ok("-exec-arguments 8")
        mi.ok("-break-insert main")
        mi.ok("-exec-run")
        mi.stopped()
        list_groups()
        mi.ok("-exec-continue")
        mi.stopped()
        list_groups()
    finally:
        mi.close()
    return groups


def test_exit_code_in_thread_groups_like_gdb(exitcode: Path) -> None:
    expected = _groups_through_two_runs(exitcode, gdb=True)
    assert 'exit-code="010"' in expected[-1]
    assert _groups_through_two_runs(exitcode, gdb=False) == expected


ARCHITECTURE_COMMANDS = ["show architecture", "-gdb-show architecture", "set architecture i386:x86-64",
                         "set architecture i386:x86-64", "show architecture", "-gdb-set architecture auto",
                         "set architecture foo", "set architecture", "-file-exec-and-symbols {program}",
                         "show arch"]


def _architecture_transcript(program: Path, gdb: bool) -> list[str]:
    mi = MiClient(["-i=mi", "-q", "-nx"], cwd=program.parent, gdb=gdb)
    try:
        lines = mi.prompt()
        for command in ARCHITECTURE_COMMANDS:
            lines += mi.command(command.format(program=program), token=False)[1]
    finally:
        mi.close()
    return lines


def test_show_and_set_architecture_like_gdb(exitcode: Path) -> None:
    # auto stands for i386 until a program tells (gdb's default), then for the program's
    expected = _architecture_transcript(exitcode, gdb=True)
    assert '~"The target architecture is set to \\"auto\\" (currently \\"i386:x86-64\\").\\n"' in expected
    assert _architecture_transcript(exitcode, gdb=False) == expected


def test_other_architectures_refused(exitcode: Path) -> None:
    mi = MiClient(["-i=mi", "-q", "-nx", str(exitcode)], cwd=exitcode.parent)
    try:
        mi.prompt()
        message = mi.error("-gdb-set architecture i386")
        assert message == 'The setting "architecture" is not supported by aliceserver except as auto or i386:x86-64.'
        assert mi.ok("-gdb-show architecture").results["value"] == "auto"
    finally:
        mi.close()


@pytest.fixture(scope="module")
def print_args(builder: Builder) -> Path:
    return builder.build("print_args")


def test_startup_with_shell_off_splits_at_blanks_like_gdb(print_args: Path) -> None:
    # gdb then execs the program itself: quotes and `>` are the program's, split at blanks
    commands = ["set startup-with-shell off", "run 'a b'  \"c\"\t>x", "show startup-with-shell",
                "set startup-with-shell on", "run 'a b'  \"c\" d"]
    args = ["-batch", "-nx", *[arg for command in commands for arg in ("-ex", command)], str(print_args)]
    expected, got = theirs(args, print_args.parent), ours(args, print_args.parent)
    assert "['a]\n[b']\n[\"c\"]\n[>x]\n" in expected.stdout
    assert normalized(got.stdout) == normalized(expected.stdout)
    assert not (print_args.parent / "x").exists()


def _failed_start(program: Path, gdb: bool) -> tuple[list[str], str]:
    """-exec-run --start of a program its exec refuses, with startup-with-shell off: the
    records it gives (pid left out), and everything it printed."""
    mi = MiClient(["-i=mi", "-q", "-nx"], cwd=program.parent, gdb=gdb)
    try:
        mi.prompt()
        mi.ok("-gdb-set startup-with-shell off")
        mi.ok(f"-file-exec-and-symbols {program}")
        lines = mi.command("-exec-run --start")[1]
        lines += mi.command("-list-thread-groups")[1]
    finally:
        mi.close()
    records = [re.sub(r'pid="\d+"', 'pid="N"', line) for line in lines if line.startswith(("=thread", "1"))]
    return records, "\n".join(mi.lines) + mi.stderr.decode()


def test_exec_failure_at_startup_like_gdb(print_args: Path, tmp_path: Path) -> None:
    not_executable = tmp_path / "print_args.nox"
    not_executable.write_bytes(print_args.read_bytes())
    not_executable.chmod(0o644)
    expected, _ = _failed_start(not_executable, gdb=True)
    assert any("During startup program exited with code 127." in line for line in expected)
    got, printed = _failed_start(not_executable, gdb=False)
    assert got == expected
    assert f"warning: Cannot exec {not_executable}" in printed
    assert "warning: Error: Permission denied" in printed
