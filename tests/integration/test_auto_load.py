"""gdb's auto-load safe path over MI and the console, against gdb 13 on the same program: a
printer script beside a C++ program in a directory outside the safe path is declined with
gdb's warning and advice (its printer unused, `info auto-load` saying No); trusted by
`add-auto-load-safe-path` or `set auto-load safe-path` before the program is read, it runs
and prints its values; the auto-load settings and commands answer as gdb's.

gdb runs an allowed script as it reads the program, aliceserver when a value first needs the
printers: where a script prints, the line comes at a different place, so those runs compare
what each command printed, not the whole output."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.batch import ex, normalized, ours, theirs
from tests.support.build_more import find_cxx
from tests.support.gdb import gdb_path
from tests.support.mi_client import MiClient
from tests.support.points_printer import STOP, build_points

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
]

AT_STOP = [f"break {STOP}", "run", "print pt"]


@pytest.fixture
def program(tmp_path: Path) -> Path:
    """The program in a directory of its own (the test's, outside any safe path), with its
    printer script beside it."""
    return build_points(tmp_path)


def both(program: Path, options: list[str], commands: list[str]) -> tuple[str, str]:
    """(gdb's, ours) stdout and stderr of `-batch -nx OPTIONS -ex ... PROGRAM`."""
    args = ["-batch", "-nx", *options, *ex(*commands), str(program)]
    expected, got = theirs(args, program.parent), ours(args, program.parent)
    return normalized(expected.stdout + expected.stderr), normalized(got.stdout + got.stderr)


def test_a_script_outside_the_safe_path_is_declined_as_gdb(program: Path) -> None:
    expected, got = both(program, [], [*AT_STOP, "info auto-load python-scripts", "info auto-load"])
    script = os.path.realpath(program.parent / "points-gdb.py")
    assert got == expected
    assert (f'warning: File "{script}" auto-loading has been declined by your `auto-load safe-path\' set to '
            '"$debugdir:$datadir/auto-load".') in got.splitlines()  # on the error stream (after stdout here)
    assert f"To enable execution of this file add\n\tadd-auto-load-safe-path {script}\n" in got
    assert "$1 = {x = 1, y = 2}" in got
    assert f"No      {script}" in got


@pytest.mark.parametrize("trust", ["add-auto-load-safe-path {dir}", "set auto-load safe-path {dir}",
                                   "set auto-load safe-path /", "set auto-load safe-path {dir}/p*-gdb.py"])
def test_a_trusted_script_runs_as_in_gdb(program: Path, trust: str) -> None:
    """Trusted before the program is read (`-iex`): no warning, the printer prints."""
    command = trust.format(dir=program.parent)
    expected, got = both(program, ["-iex", command], [*AT_STOP, "info auto-load python-scripts points"])
    assert got == expected
    assert "warning" not in got and "$1 = Point(1, 2)" in got
    assert f"Yes     {program.parent}/points-gdb.py" in got


@pytest.mark.parametrize("untrusted", ["set auto-load safe-path {dir}/p", "set auto-load safe-path {dir}x",
                                       "set auto-load python-scripts off"])
def test_what_trusts_nothing_as_in_gdb(program: Path, untrusted: str) -> None:
    expected, got = both(program, ["-iex", untrusted.format(dir=program.parent)], AT_STOP)
    assert got == expected
    assert "$1 = {x = 1, y = 2}" in got


def test_trusted_after_the_program_is_read_it_stays_declined(program: Path) -> None:
    """As gdb: the verdict is taken as the program is read; `file` again reads it anew."""
    commands = [f"add-auto-load-safe-path {program.parent}", *AT_STOP, "file points", "run", "print pt"]
    expected, got = both(program, [], commands)
    printed = [line for line in got.splitlines() if line.startswith("$")]
    assert printed == [line for line in expected.splitlines() if line.startswith("$")]
    assert printed == ["$1 = {x = 1, y = 2}", "$2 = Point(1, 2)"]


SETTINGS = [
    "show auto-load safe-path", "add-auto-load-safe-path", "add-auto-load-safe-path /tmp/x",
    "show auto-load safe-path", "set auto-load safe-path /", "show auto-load safe-path",
    "set auto-load safe-path ::", "show auto-load safe-path", "set auto-load safe-path",
    "show auto-load safe-path", "set auto-load safe-path ~", "show auto-load safe-path",
    "show auto-load python-scripts", "set auto-load python-scripts off", "show auto-load python-scripts",
    "set auto-load maybe", "set auto-load", "show auto-load scripts-directory", "add-auto-load-scripts-directory",
    "add-auto-load-scripts-directory /opt/x", "show auto-load scripts-directory",
    "set auto-load scripts-directory", "show auto-load scripts-directory", "info auto-load gdb-scripts",
    "info auto-load libthread-db", "info auto-load local-gdbinit", "set auto-load off", "show auto-load",
]


def test_settings_and_commands_as_gdb(program: Path) -> None:
    expected, got = both(program, ["-iex", f"add-auto-load-safe-path {program.parent}"], SETTINGS)
    assert got == expected
    assert ("List of directories from which it is safe to auto-load files is "
            f"$debugdir:$datadir/auto-load:{program.parent}:/tmp/x.") in got.splitlines()
    assert "Auto-load files are safe to load from any directory." in got


def test_what_aliceserver_never_loads_is_off(program: Path) -> None:
    """gdb-scripts, local-gdbinit and libthread-db: off here (gdb's default is on), and
    only off is taken."""
    args = ["-batch", "-nx", *ex("show auto-load gdb-scripts", "set auto-load gdb-scripts on",
                                 "set auto-load local-gdbinit on", "set auto-load libthread-db off"), str(program)]
    got = ours(args, program.parent)
    assert got.stdout.splitlines()[-1] == "Auto-loading of canned sequences of commands scripts is off."
    assert got.stderr.splitlines()[-2:] == [
        'The setting "auto-load gdb-scripts" is not supported by aliceserver except as off.',
        'The setting "auto-load local-gdbinit" is not supported by aliceserver except as off.',
    ]


def test_mi_warns_at_reading_the_program(program: Path) -> None:
    """-file-exec-and-symbols tells of the declined script in gdb's log record, the advice
    on the console stream."""
    script = os.path.realpath(program.parent / "points-gdb.py")
    client = MiClient(["-i=mi", "-q"], cwd=str(program.parent))
    try:
        client.prompt()
        record, seen = client.command(f"-file-exec-and-symbols {program}")
        assert record.cls == "done"
        logs = [line for line in seen if line.startswith("&")]
        assert logs == [
            '&"warning: File \\"' + script + '\\" auto-loading has been declined by your `auto-load safe-path\' '
            'set to \\"$debugdir:$datadir/auto-load\\".\\n"'
        ]
        assert any(line == '~"\\tadd-auto-load-safe-path ' + script + '\\n"' for line in seen), seen
        record, seen = client.command(f"-file-exec-and-symbols {program}")  # told once a session
        assert [line for line in seen if line.startswith(("&", "~"))] == []
    finally:
        client.close()
