"""gdb's shared library list, compared with gdb 13 in the same run: `info sharedlibrary
[REGEX]` shows each library's .text range, `Yes (*)` and gdb's footer for a library
without debug info, and its words for no library or no match; MI
`-file-list-shared-libraries [REGEX]` and `=library-loaded` give the same ranges."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

LOADED = marker_line("dlopen_main.c", "loaded")


@pytest.fixture(scope="module")
def programs(builder: Builder) -> tuple[Path, Path]:
    library = builder.build("lib_plugin", flags=("-O0",), extra=["-shared", "-fPIC"])  # no -g
    return builder.build("dlopen_main", extra=["-ldl"]), library


def test_info_sharedlibrary_like_gdb(programs: tuple[Path, Path]) -> None:
    prog, library = programs
    commands = ["info sharedlibrary", "break main", "run", "info sharedlibrary", f"break {LOADED}",
                "continue", "info sharedlibrary", "info sharedlibrary lib_plugin", "info sharedlibrary nomatch"]
    args = [arg for command in commands for arg in ("-ex", command)]
    got = assert_like_gdb([*args, "--args", str(prog), str(library)], prog.parent)
    assert got.stdout.startswith("No shared libraries loaded at this time.\n")
    assert f"Yes (*)     {library}\n(*): Shared library is missing debugging information.\n" in got.stdout
    assert "No shared libraries matched.\n" in got.stdout


def _mi(prog: Path, library: Path, *, gdb: bool) -> list[str]:
    mi = MiClient(["-i=mi", "-q", "-nx", "--args", str(prog), str(library)], cwd=prog.parent, gdb=gdb)
    try:
        mi.prompt()
        mi.ok("-break-insert main")
        mi.ok("-exec-run")
        seen = mi.read_until(lambda line: line.startswith("*stopped"))
        loaded = sorted(line for line in seen if line.startswith("=library-loaded"))
        answers = [mi.command(f"-file-list-shared-libraries{arg}")[1][-2] for arg in ("", " libc", " a b")]
        return loaded + answers
    finally:
        mi.close()


def test_mi_shared_libraries_like_gdb(programs: tuple[Path, Path]) -> None:
    prog, library = programs
    got = _mi(prog, library, gdb=False)
    assert got == _mi(prog, library, gdb=True)
    assert any("libc.so" in line and "ranges=[{from=" in line for line in got)
