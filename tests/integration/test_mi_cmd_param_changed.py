"""=cmd-param-changed, side by side with gdb 13: gdb tells a setting's change, from -iex
and -ex as well as from a typed `set`, and only a change (`set height 0` where the height
is already unlimited says nothing); an `unlimited` number is written as gdb stores it."""

from __future__ import annotations

from pathlib import Path

from tests.support.batch import needs_gdb
from tests.support.mi_client import MiClient

COMMANDS = ['-interpreter-exec console "set height 10"', '-interpreter-exec console "set height 10"',
            "set print pretty on", "set print pretty on", "set listsize 0", "set listsize unlimited",
            "set print elements unlimited", "set history size unlimited", "set height 0", "-gdb-set height 5"]


def _transcript(gdb: bool, cwd: Path) -> list[str]:
    mi = MiClient(["-i=mi", "-q", "-nx", "-iex", "set height 0", "-iex", "set print repeats 4",
                   "-ex", "set confirm off", "-ex", "set confirm off"], cwd=cwd, gdb=gdb)
    try:
        lines = mi.prompt()
        for command in COMMANDS:
            lines += mi.command(command, token=False)[1]
    finally:
        mi.close()
    if not gdb:
        mi.check()
    return lines


@needs_gdb
def test_param_changed_like_gdb(tmp_path: Path) -> None:
    expected = _transcript(True, tmp_path)
    assert any(line.startswith("=cmd-param-changed") for line in expected)
    assert _transcript(False, tmp_path) == expected


DIRECTORY_COMMANDS = ["set directories $cdir:$cwd:/tmp", "set directories /usr:/nonexistent-dir",
                      "-gdb-set directories /tmp", "-gdb-show directories", "show directories", "directory"]


def _directories_transcript(gdb: bool, cwd: Path) -> list[str]:
    mi = MiClient(["-i=mi", "-q", "-nx"], cwd=cwd, gdb=gdb)
    try:
        lines = mi.prompt()
        for command in DIRECTORY_COMMANDS:
            lines += mi.command(command, token=False)[1]
    finally:
        mi.close()
    return lines


@needs_gdb
def test_set_directories_like_gdb(tmp_path: Path) -> None:
    # `set directories` replaces the source path (then $cdir:$cwd) and tells the change,
    # to the other channels only when an MI command made it
    expected = _directories_transcript(True, tmp_path)
    assert '=cmd-param-changed,param="directories",value="$cdir:$cwd:/tmp"' in expected
    assert _directories_transcript(False, tmp_path) == expected


IGNORED_BY_GDB_COMMANDS = ["set remotecache off", "set remotecache on", "set remotecache on", "show remotecache",
                           "-gdb-set remotecache off", "-gdb-show remotecache", "set trace-notes foo",
                           "set trace-notes foo", "show trace-notes", "-gdb-set trace-notes bar", "set trace-notes",
                           "set trace-user u", "show trace-user", "set trace-stop-notes s", "show trace-stop-notes"]


def _ignored_by_gdb_transcript(gdb: bool, cwd: Path) -> list[str]:
    mi = MiClient(["-i=mi", "-q", "-nx"], cwd=cwd, gdb=gdb)
    try:
        lines = mi.prompt()
        for command in IGNORED_BY_GDB_COMMANDS:
            lines += mi.command(command, token=False)[1]
    finally:
        mi.close()
    return lines


@needs_gdb
def test_settings_gdb_itself_ignores_like_gdb(tmp_path: Path) -> None:
    # remotecache "now does nothing and exists only for compatibility reasons" (gdb's
    # help); the trace notes are kept, with gdb's warning that the target has none
    expected = _ignored_by_gdb_transcript(True, tmp_path)
    assert '=cmd-param-changed,param="trace-notes",value="foo"' in expected
    assert _ignored_by_gdb_transcript(False, tmp_path) == expected
