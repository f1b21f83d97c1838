"""A program whose sources moved after the build: compiled in `build/src` (so that DWARF
names that directory), then its source moved to `local`, as a container or CI build is
debugged on another machine."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.support.build import PROGRAMS_DIR, find_compiler

NAME = "moved_source.c"


@dataclass(frozen=True)
class Moved:
    program: Path
    build_dir: Path  # where the debug info says the source is (no longer there)
    local_dir: Path  # where it is now
    built_source: Path
    local_source: Path


def build_moved(root: Path) -> Moved:
    compiler = find_compiler()
    assert compiler is not None
    build_dir, local_dir = root / "build" / "src", root / "local"
    build_dir.mkdir(parents=True)
    local_dir.mkdir()
    built = build_dir / NAME
    shutil.copy(PROGRAMS_DIR / NAME, built)
    program = root / "moved"
    subprocess.run([compiler, "-g", "-O0", "-o", str(program), str(built)], check=True, cwd=build_dir)
    local = local_dir / NAME
    built.rename(local)
    return Moved(program, build_dir, local_dir, built, local)
