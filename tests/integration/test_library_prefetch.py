"""A first session on a machine inflates the DWARF of the libraries a program will load
ahead, in a thread, while it builds the program's index (sectionprefetch.py), from the
libraries foreseen in the program's file (needed.py).

Real builds: a library with zlib-compressed DWARF (gcc -gz) holding a static inline
function, found through the program's run path. Checked: what the loader maps is what is
foreseen (against ldd), a section inflated ahead is the one read on demand, and a session
with an empty cache hands the library's opened DWARF to its index (a later session, the
library indexed, does not) with the same stop and backtrace as gdb's."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.debuggers.symbols.needed import needed_libraries
from tests.support.batch import needs_gdb, normalized, ours_cached, theirs
from tests.support.build import PROGRAMS_DIR

_MAIN = """
#include <math.h>
#include <stdio.h>
int lib_entry(int v);
int main(int argc, char **argv) { printf("%d %f\\n", lib_entry(argc + 3), sqrt((double)argc)); return 0; }
"""
_SESSION = ("-batch", "-ex", "set breakpoint pending on", "-ex", "break twice", "-ex", "run", "-ex", "bt")


@pytest.fixture(scope="module", params=["runpath", "rpath"])
def program(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc not found")
    root = tmp_path_factory.mktemp(f"prefetch-{request.param}")
    (root / "inl.c").write_text((PROGRAMS_DIR / "lib_inlined_twice.c").read_text())
    (root / "main.c").write_text(_MAIN)
    (root / "lib").mkdir()
    subprocess.run(["gcc", "-g", "-O2", "-gz=zlib", "-shared", "-fPIC", "inl.c", "-o", "lib/libinl.so"],
                   cwd=root, check=True)  # fmt: skip
    tags = "--enable-new-dtags" if request.param == "runpath" else "--disable-new-dtags"
    subprocess.run(["gcc", "-g", "-O0", "main.c", "-Llib", "-linl", "-lm", f"-Wl,{tags}",
                    "-Wl,-rpath,$ORIGIN/lib", "-o", "main"], cwd=root, check=True)  # fmt: skip
    return root / "main"


def _ldd(program: Path) -> set[str]:
    out = subprocess.run(["ldd", str(program)], capture_output=True, text=True, check=True).stdout
    paths = {m.group(1) for m in re.finditer(r"=> (/\S+)", out)}
    paths |= {m.group(1) for m in re.finditer(r"^\s*(/\S+) \(", out, re.M)}  # the loader
    return {os.path.realpath(p) for p in paths}


def test_the_libraries_foreseen_are_those_the_loader_maps(program: Path) -> None:
    if shutil.which("ldd") is None:
        pytest.skip("ldd not found")
    foreseen = needed_libraries(ElfImage.load(str(program)))
    assert {os.path.realpath(p) for p in foreseen} == _ldd(program)
    assert os.path.realpath(foreseen[0]) == os.path.realpath(program.parent / "lib" / "libinl.so")


def test_a_section_inflated_ahead_is_the_one_read_on_demand(program: Path) -> None:
    library = str(program.parent / "lib" / "libinl.so")
    ahead = ElfSections(library)
    names = (".debug_info", ".debug_abbrev", ".debug_str", ".debug_line")
    assert ahead.inflate_ahead(names) > 0
    assert ahead.inflate_ahead(names) == 0  # done once
    for name in names:
        assert ahead.read(name, 3, 40) == ElfSections(library).read(name, 3, 40)
        assert ahead.get(name) == ElfSections(library).get(name)
    assert not ahead._partial  # nothing inflated again on demand


def _session(program: Path, cache: Path, log: Path) -> str:
    """Our session; the program given by `file` (on the command line, a child would index
    it and its libraries before the session, where the load leaves a CPU idle)."""
    return ours_cached(program, _SESSION, cache, log, env={"XDG_CACHE_HOME": str(cache.parent / "xdg")},
                       by_file_command=True)  # fmt: skip


def _opened_ahead(log: Path) -> list[str]:
    return [line for line in log.read_text().splitlines() if "opened ahead" in line]


@needs_gdb
def test_a_first_session_opens_the_library_ahead_and_stops_as_gdb(program: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _session(program, cache, tmp_path / "first.log")
    opened = _opened_ahead(tmp_path / "first.log")
    assert any("libinl.so" in line for line in opened), opened
    assert any("libm.so" in line or "libc.so" in line for line in opened) or not _has_debug_files(program)
    again = _session(program, cache, tmp_path / "again.log")
    assert not _opened_ahead(tmp_path / "again.log")  # indexed by the first session
    gdb = theirs(["-nx", *_SESSION, str(program)], program.parent)
    assert normalized(first) == normalized(again) == normalized(gdb.stdout)
    assert "twice" in first


def _has_debug_files(program: Path) -> bool:
    """Whether the C library has a separate debug file (libc6-dbg) here."""
    libc = next((p for p in needed_libraries(ElfImage.load(str(program))) if "libc.so" in p), None)
    build_id = ElfImage.load(libc).build_id if libc else None
    if not build_id:
        return False
    return os.path.exists(f"/usr/lib/debug/.build-id/{build_id[:2]}/{build_id[2:]}.debug")


def test_a_session_through_a_stub_reading_the_targets_files_foresees_nothing(program: Path,
                                                                            tmp_path: Path) -> None:  # fmt: skip
    """Behind gdbserver with gdb's default sysroot (`target:`), the libraries are the stub's
    files, read through it: this machine's own are not inflated for nothing."""
    from tests.support.batch import ex, ours
    from tests.support.gdbserver import gdbserver, gdbserver_path

    try:
        gdbserver_path()
    except Exception:  # noqa: BLE001 - the helper's own way to say it is missing
        pytest.skip("gdbserver not installed")
    log = tmp_path / "remote.log"
    with gdbserver(program) as server:
        commands = ex(f"target remote {server.address}", "set breakpoint pending on", "break twice",
                      "continue", "bt", "kill")  # fmt: skip
        done = ours(["--cache-dir", str(tmp_path / "cache"), "--log-file", str(log), "--log-level", "DEBUG",
                     "-batch", "-nx", *commands, str(program)], program.parent)  # fmt: skip
    assert "Breakpoint 1.1, twice (x=4) at " in done.stdout, done.stdout + done.stderr
    assert "target:" in log.read_text()  # the stub's files
    assert [line for line in log.read_text().splitlines() if " ahead" in line] == []
