"""`fullname` of a file the debug info names relative to no directory (gcc
-fdebug-prefix-map=$PWD= leaves DW_AT_comp_dir empty: `sub/exitcode.c`), side by side with
gdb 13: found under $cwd it is absolute, found nowhere it stays as named."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import PROGRAMS_DIR, find_compiler
from tests.support.mi_client import MiClient


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    compiler = find_compiler()
    if compiler is None:
        pytest.skip("gcc not found")
    top = tmp_path_factory.mktemp("relative")
    (top / "sub").mkdir()
    (top / "elsewhere").mkdir()
    shutil.copy(PROGRAMS_DIR / "exitcode.c", top / "sub" / "exitcode.c")
    subprocess.run([compiler, "-g", "-gdwarf-4", "-O0", f"-fdebug-prefix-map={top}=", "sub/exitcode.c",
                    "-o", "prog"], cwd=top, check=True)
    return top


def _fullnames(gdb: bool, program: Path, cwd: Path) -> list[str]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        lines = mi.command("-break-insert main")[1]
        lines += mi.command("-exec-run")[1]
        lines.append(mi.read_until(lambda line: line.startswith("*stopped"))[-1])
        mi.prompt()
        lines += mi.command("-stack-info-frame")[1]
    finally:
        mi.close()
    return [found for line in lines for found in re.findall(r'(?:file|fullname)="[^"]*"', line)]


@needs_gdb
@pytest.mark.parametrize("where", [".", "sub", "elsewhere"])
def test_relative_fullname_like_gdb(built: Path, where: str) -> None:
    cwd = built / where
    expected = _fullnames(True, built / "prog", cwd)
    assert 'file="sub/exitcode.c"' in expected  # the debug info names it relative indeed
    assert _fullnames(False, built / "prog", cwd) == expected
