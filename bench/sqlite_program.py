"""The sqlite shell for the benchmarks: Debian's sqlite3 source package, its amalgamation
(sqlite3.c, about 9 MB of C) made with the upstream makefile and compiled with -O0 -g.

The source comes through apt as for CPython (bench/large_program). The build is kept in the
temp dir and reused while it exists; it takes about ten seconds on two cores and needs
tclsh (Debian's tcl), which makes the amalgamation.
"""

from __future__ import annotations

import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from bench.large_program import apt_source

PACKAGE = "sqlite3"
FLAGS = ("-O0", "-g")
# A recursive query whose every row calls hex(): a stop in hexFunc under the VDBE.
ARGS = (":memory:", "with recursive c(x) as (select 1 union all select x + 1 from c "
        "where x < 500) select sum(length(hex(x))) from c;")  # fmt: skip
FUNCTION = "hexFunc"


def _root() -> Path:
    return Path(tempfile.gettempdir()) / "aliceserver-bench" / "sqlite"


def build(optimization: str = "-O0") -> Path:
    """The sqlite3 shell with debug info (built once, then reused); another `optimization`
    (e.g. "-O2") is compiled beside it from the same amalgamation."""
    root = _root()
    stamp = root / "program"
    if not (stamp.exists() and Path(stamp.read_text()).exists()):
        _build_default(root, stamp)
    program = Path(stamp.read_text())
    if optimization == FLAGS[0]:
        return program
    other = program.with_name(f"sqlite3{optimization}")
    if not other.exists():
        partial = other.with_name(f"{other.name}.tmp")
        subprocess.run(["gcc", optimization, "-g", "-o", str(partial), "sqlite3.c", "shell.c",
                        "-lpthread", "-ldl", "-lm"], cwd=program.parent, check=True)  # fmt: skip
        partial.replace(other)
    return other


def _build_default(root: Path, stamp: Path) -> None:
    for tool in ("apt-get", "gcc", "make", "tclsh"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"{tool} not found: the sqlite benchmark needs it")
    root.mkdir(parents=True, exist_ok=True)
    tarball = apt_source(root, PACKAGE)
    work = root / "build"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    with tarfile.open(tarball) as archive:
        archive.extractall(work, filter="data")
    (source,) = [p for p in work.iterdir() if p.is_dir()]
    quiet = subprocess.DEVNULL
    subprocess.run(["./configure"], cwd=source, check=True, stdout=quiet, stderr=quiet)
    subprocess.run(["make", "sqlite3.c", "shell.c"], cwd=source, check=True,
                   stdout=quiet, stderr=quiet)  # fmt: skip
    program = source / "sqlite3"
    subprocess.run(["gcc", *FLAGS, "-o", str(program), "sqlite3.c", "shell.c",
                    "-lpthread", "-ldl", "-lm"], cwd=source, check=True)  # fmt: skip
    stamp.write_text(str(program))
