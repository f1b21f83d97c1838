"""A library's compressed .debug_info, inflated by the first search of it, is kept in the
cache, and a later session's search for a name reads it there without inflating
(inflatedcache.py); a damaged file is ignored.

Real builds: a library with zlib-compressed DWARF (gcc -gz) holding a static inline
function inlined twice, which `break` finds by searching the library's .debug_info (its
symbol table lacks it). Between sessions the libraries' remembered answers (their -extra
files) are removed, as for a program never seen, so that the search runs again. A fault
hook makes inflating the library's .debug_info a window at a time fail: a session that
inflated it would not find the copies, and would stop elsewhere than gdb."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from aliceserver.debuggers.symbols.dwarf.cachedir import CacheDirectory
from tests.support.batch import needs_gdb, normalized, ours_cached, theirs
from tests.support.build import PROGRAMS_DIR

pytestmark = pytest.mark.timeout(180)

_MAIN = """
#include <stdio.h>
int lib_entry(int v);
int main(int argc, char **argv) { printf("%d\\n", lib_entry(argc + 3)); return 0; }
"""
_SESSION = ("-batch", "-ex", "set breakpoint pending on", "-ex", "break twice", "-ex", "run",
            "-ex", "bt", "-ex", "info breakpoints")  # fmt: skip
# Loaded first by the session's interpreter: with the variable set, inflating the library's
# sections a window at a time (a search of its .debug_info) raises.
_SITECUSTOMIZE = """
import os
if os.environ.get("INFLATE_TEST") == "fail":
    from aliceserver.debuggers.symbols.dwarf import inflate
    from aliceserver.errors import TargetError
    _read = inflate.WindowInflate.read
    def read(self, offset, size):
        if "libinl" in self._where:
            raise TargetError("inflated in the test")
        return _read(self, offset, size)
    inflate.WindowInflate.read = read
if os.environ.get("INFLATE_TEST") == "search":  # only a search's own inflating raises
    from aliceserver.debuggers.symbols.dwarf import inflate
    from aliceserver.errors import TargetError
    _read = inflate.WindowInflate.read
    def read(self, offset, size):
        if "libinl" in self._where and getattr(self, "_step", 64 << 10) == 64 << 10:
            raise TargetError("inflated in the test")
        return _read(self, offset, size)
    inflate.WindowInflate.read = read
if os.environ.get("INFLATE_TEST") == "cut":  # another process cuts the kept file once trusted
    from aliceserver.debuggers.symbols.dwarf import inflatedcache
    _kept = inflatedcache.kept
    def kept(sections, name, *rest):
        found = _kept(sections, name, *rest)
        if found is not None and "libinl" in sections.path:
            cache, key = inflatedcache._keys.get(sections) or inflatedcache._by_path[sections.path]
            os.truncate(inflatedcache.path_for(cache, key, name), 64)
        return found
    inflatedcache.kept = kept
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc not found")
    root = tmp_path_factory.mktemp("inflated")
    (root / "inl.c").write_text((PROGRAMS_DIR / "lib_inlined_twice.c").read_text())
    (root / "main.c").write_text(_MAIN)
    (root / "lib").mkdir()
    subprocess.run(["gcc", "-g", "-O2", "-gz=zlib", "-shared", "-fPIC", "inl.c", "-o", "lib/libinl.so"],
                   cwd=root, check=True)  # fmt: skip
    subprocess.run(["gcc", "-g", "-O0", "main.c", "-Llib", "-linl", "-Wl,-rpath,$ORIGIN/lib", "-o", "main"],
                   cwd=root, check=True)  # fmt: skip
    (root / "custom").mkdir()
    (root / "custom" / "sitecustomize.py").write_text(_SITECUSTOMIZE)
    return root / "main"


def _session(program: Path, cache: Path, log: Path, fail: bool = False, test: str = "") -> str:
    env = {"XDG_CACHE_HOME": str(cache.parent / "xdg"), "INFLATE_TEST": "fail" if fail else test}
    return ours_cached(program, _SESSION, cache, log, program.parent / "custom", env)


def _forget_answers(cache: Path) -> None:
    """No remembered answers: the next session searches the libraries for the name again."""
    for path in cache.glob("*-extra.v*.idx"):
        path.unlink()


def _kept_file(program: Path, cache: Path) -> Path:
    from aliceserver.debuggers.symbols.elf import ElfImage

    build_id = ElfImage.load(str(program.parent / "lib" / "libinl.so")).build_id
    assert build_id
    found = list(cache.glob(f"b-{build_id}-inflated_debug_info.v*.idx"))
    assert len(found) == 1, sorted(p.name for p in cache.iterdir())
    return found[0]


@needs_gdb
def test_a_later_session_searches_the_kept_bytes_and_ignores_a_damaged_file(program: Path,
                                                                           tmp_path: Path) -> None:  # fmt: skip
    gdb = normalized(theirs(["-nx", *_SESSION, str(program)], program.parent).stdout)
    assert "twice" in gdb and "<MULTIPLE>" in gdb  # both inlined copies
    cache = tmp_path / "cache"
    first = _session(program, cache, tmp_path / "first.log")
    kept = _kept_file(program, cache)
    entries = CacheDirectory(str(cache)).usage().entries  # counted, evicted, cleared with the index
    assert any(str(kept) in entry.paths and kept.name.startswith(entry.key) for entry in entries)
    _forget_answers(cache)
    again = _session(program, cache, tmp_path / "again.log", fail=True)  # inflating raises
    assert normalized(first) == normalized(again) == gdb
    assert (
        "libinl.so: .debug_info read inflated from the cache"
        in (tmp_path / "again.log").read_text()
    )

    data = bytearray(kept.read_bytes())
    data[len(data) // 2] ^= 0x55  # one byte of the body: its CRC no longer holds
    kept.write_bytes(data)
    _forget_answers(cache)
    failed = _session(program, cache, tmp_path / "damaged-failing.log", fail=True)
    assert normalized(failed) != gdb  # the damaged bytes were not searched: inflating was tried
    _forget_answers(cache)
    damaged = _session(program, cache, tmp_path / "damaged.log")
    assert normalized(damaged) == gdb
    assert "ignoring the cache file" in (tmp_path / "damaged.log").read_text()
    assert kept.read_bytes() != data  # written again by that session's search, whole

    kept.write_bytes(kept.read_bytes()[:-100])  # short
    _forget_answers(cache)
    short = _session(program, cache, tmp_path / "short.log")
    assert normalized(short) == gdb
    assert "ignoring the cache file" in (tmp_path / "short.log").read_text()


@needs_gdb
def test_a_first_session_inflates_the_library_ahead_and_searches_the_kept_bytes(
    program: Path, tmp_path: Path
) -> None:
    """The library's .debug_info is inflated into the cache by a thread as the program
    loads (indexahead.py), before the session searches it: the search, whose own
    inflating fails here, reads the kept file and finds gdb's two inlined copies."""
    gdb = normalized(theirs(["-nx", *_SESSION, str(program)], program.parent).stdout)
    cache = tmp_path / "cache"
    first = _session(program, cache, tmp_path / "first.log", test="search")
    log = (tmp_path / "first.log").read_text()
    library = program.parent / "lib" / "libinl.so"
    assert f"debug info of {library} inflated ahead" in log, log
    assert "libinl.so: .debug_info read inflated from the cache" in log
    assert normalized(first) == gdb
    _kept_file(program, cache)


@needs_gdb
def test_a_kept_file_cut_short_while_searched_leaves_the_answer_to_the_section(
    program: Path, tmp_path: Path
) -> None:
    """Another process cuts the kept file short once it was checked: the search goes on
    in the section's own bytes, and finds what gdb finds (read a window at a time, not
    mapped: under a map, the pages gone would end the session)."""
    gdb = normalized(theirs(["-nx", *_SESSION, str(program)], program.parent).stdout)
    cache = tmp_path / "cache"
    _session(program, cache, tmp_path / "first.log")
    _kept_file(program, cache)
    _forget_answers(cache)
    cut = _session(program, cache, tmp_path / "cut.log", test="cut")
    assert normalized(cut) == gdb
    assert "the kept inflated .debug_info was cut short" in (tmp_path / "cut.log").read_text()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to a read-only directory")
def test_a_directory_that_refuses_the_file_leaves_the_search_as_it_was(
    program: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    first = _session(program, cache, tmp_path / "first.log")
    for path in cache.glob("*-inflated_*"):
        path.unlink()
    _forget_answers(cache)
    cache.chmod(0o500)  # read-only
    try:
        again = _session(program, cache, tmp_path / "again.log")
    finally:
        cache.chmod(0o700)
    assert normalized(again) == normalized(first)
    assert "twice" in again
    assert not list(cache.glob("*-inflated_*")) and not list(cache.glob(".tmp-*"))
