"""gdb's `info files` / `info target` and `maint info sections` against gdb 13 on the same
programs: before run (link-time addresses), and at a stop (the program relocated, the
native process line, the sections of the loader, the vDSO read from memory and each
library, in gdb's order), for a C program, a C++ one with more libraries and a static
one; section filters by name and flag; a core file (its segments first, the vDSO last)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

C_SOURCE = "int counter;\nint main(void) { return counter; }\n"
CXX_SOURCE = "#include <string>\nint main() { std::string s = \"x\"; return (int) s.size(); }\n"


def _build(tmp_path: Path, name: str, source: str, compiler: str, *flags: str) -> Path:
    path = shutil.which(compiler)
    if path is None:
        pytest.skip(f"{compiler} not installed")
    (tmp_path / name).write_text(source)
    program = tmp_path / name.split(".")[0]
    done = subprocess.run([path, "-g", "-O0", *flags, "-o", str(program), str(tmp_path / name)], check=False)
    if done.returncode != 0:
        pytest.skip(f"{compiler} {' '.join(flags)} cannot build here")
    return program


def _same(program: Path, tmp_path: Path, *commands: str) -> str:
    args = ["-batch", "-nx", *ex(*commands), str(program)]
    expected, got = theirs(args, tmp_path), ours(args, tmp_path)

    def kept(text: str) -> str:  # the thread's LWP, or the process id of a static program
        return re.sub(r"\(LWP \d+\)", "(LWP N)", normalized(text))

    assert kept(got.stdout) == kept(expected.stdout)
    assert kept(got.stderr) == kept(expected.stderr)
    return got.stdout


@pytest.mark.parametrize(("name", "source", "compiler", "flags"), [
    ("files.c", C_SOURCE, "gcc", ()), ("files.cc", CXX_SOURCE, "g++", ()), ("static.c", C_SOURCE, "gcc", ("-static",)),
])  # fmt: skip
def test_info_files_like_gdb(tmp_path: Path, name: str, source: str, compiler: str, flags: tuple[str, ...]) -> None:
    program = _build(tmp_path, name, source, compiler, *flags)
    shown = _same(program, tmp_path, "info files", "maint info sections", "break main", "run", "info files",
                  "info target", "maint info sections", "maint info sections .text .bss DATA")
    assert "is .text in system-supplied DSO at 0x" in shown
    assert "Native process:\n\tUsing the running image of child " in shown


def test_info_files_of_a_core_like_gdb(tmp_path: Path) -> None:
    program = _build(tmp_path, "files.cc", CXX_SOURCE, "g++")
    theirs(["-batch", "-nx", *ex("break main", "run", "gcore core.files"), str(program)], tmp_path)
    core = tmp_path / "core.files"
    if not core.exists():
        pytest.skip("gdb could not write a core here")
    args = ["-batch", "-nx", *ex("info files", "queue-signal SIGUSR1"), str(program), str(core)]
    expected, got = theirs(args, tmp_path), ours(args, tmp_path)

    def kept(text: str) -> list[str]:  # the report's lines, not the core's opening chatter
        return [line for line in normalized(text).splitlines() if line.startswith(("\t", "Symbols", "Local"))]

    assert kept(got.stdout) == kept(expected.stdout)
    assert "The program is not being run." in got.stderr and "The program is not being run." in expected.stderr
    assert "is load1" in got.stdout
