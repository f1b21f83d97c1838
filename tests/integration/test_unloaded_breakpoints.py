"""A library unloaded (dlclose) under a breakpoint, compared with gdb 13 in the same run:
gdb's disable_breakpoints_in_unloaded_shlib warns once per library, 'warning: Temporarily
disabling breakpoints for unloaded shared library "LIB"', when a breakpoint, enabled or
not, had a place there (on stderr; in MI an & record after the first =breakpoint-modified),
and the breakpoint is pending again."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

LOADED = marker_line("dlopen_main.c", "loaded")
WARNING = 'warning: Temporarily disabling breakpoints for unloaded shared library "{}"'


@pytest.fixture(scope="module")
def programs(builder: Builder) -> tuple[Path, Path]:
    library = builder.build("lib_plugin", flags=("-O0",), extra=["-shared", "-fPIC"])  # no -g
    return builder.build("dlopen_main", extra=["-ldl"]), library


def test_console_warns_at_dlclose_like_gdb(programs: tuple[Path, Path]) -> None:
    prog, library = programs
    commands = [f"break {LOADED}", "run", "break plugin_work", "break plugin_work", "disable 3",
                "continue", "continue", "info breakpoints"]  # fmt: skip
    got = assert_like_gdb([*ex(*commands), "--args", str(prog), str(library)], prog.parent)
    assert got.stderr.count(WARNING.format(library)) == 1
    assert got.stdout.count("<PENDING>          plugin_work\n") == 2


def _mi(prog: Path, library: Path, *, gdb: bool) -> list[str]:
    mi = MiClient(
        ["-i=mi", "-q", "-nx", "--args", str(prog), str(library)], cwd=prog.parent, gdb=gdb
    )
    try:
        mi.prompt()
        mi.ok(f"-break-insert dlopen_main.c:{LOADED}")
        mi.ok("-exec-run")
        mi.read_until(lambda line: line.startswith("*stopped"))
        mi.ok("-break-insert plugin_work")
        mi.ok("-break-insert plugin_work")
        mi.ok("-break-disable 3")
        mi.ok(f"-break-insert dlopen_main.c:{LOADED + 4}")
        mi.ok("-exec-continue")
        mi.read_until(lambda line: line.startswith("*stopped"))
        mi.ok("-exec-continue")
        seen = mi.read_until(lambda line: line.startswith("*stopped"))
        return [line for line in seen if line.startswith(("=", "&"))] + [
            mi.command("-break-list")[1][-2]
        ]
    finally:
        mi.close()


def test_mi_warns_at_dlclose_like_gdb(programs: tuple[Path, Path]) -> None:
    prog, library = programs
    got = _mi(prog, library, gdb=False)
    assert got == _mi(prog, library, gdb=True)
    assert got[2].startswith(
        '&"warning: Temporarily disabling breakpoints for unloaded shared library'
    )
