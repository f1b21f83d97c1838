"""A library's compressed .debug_info kept inflated in the cache by an earlier session's
search (inflatedcache.py) serves the session's own reads of its units too: a stop in a
function whose unit lies far into the section reads its DIEs from the kept file rather
than inflate the section up to there (libc's futex wait: 1.9 MB, 25-35 ms of the first
-thread-info of a program's threads). Its other compressed sections (line programs,
abbreviations, strings) are kept whole by the first session that reads them, and read from
there by the next (libc's: 25-30 ms more of that -thread-info).

Real builds: a library with zlib-compressed DWARF (gcc -gz) whose last unit, after a
generated one of many types, holds deep() and the static inline twice() that the first
session's `break twice` searches the library for (the kept file written). The second
session stops in deep(): a fault hook makes inflating the library's .debug_info on demand
fail, so a session that inflated it would not show deep()'s arguments as gdb does. A kept
file cut short once checked leaves the reads to the section's own bytes, inflated."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, normalized, ours_cached, theirs
from tests.support.build import PROGRAMS_DIR

pytestmark = pytest.mark.timeout(180)

_MAIN = """
#include <stdio.h>
int lib_entry(int v);
int deep(int first, int second);
int main(int argc, char **argv) { printf("%d\\n", lib_entry(argc + 3) + deep(argc, 7)); return 0; }
"""
_DEEP = """
int deep(int first, int second)
{
    int sum = first * second;
    return sum + 1;
}
"""
_FIRST = ("-batch", "-ex", "set breakpoint pending on", "-ex", "break twice", "-ex", "run")
_SECOND = ("-batch", "-ex", "break deep", "-ex", "run", "-ex", "bt", "-ex", "info args")
# With the variable set, inflating the library's .debug_info on demand as far as deep()'s
# unit (past 1 MB of its 1.2) raises; reads nearer its start inflate as before.
_SITECUSTOMIZE = """
import os
if os.environ.get("INFLATE_TEST") == "fail":
    from aliceserver.debuggers.symbols.dwarf import inflate
    from aliceserver.errors import TargetError
    _prefix = inflate.PartialInflate.prefix
    def prefix(self, end):
        if "libdeep" in self._where and ".debug_info" in self._where and end > 1 << 20:
            raise TargetError("inflated in the test")
        return _prefix(self, end)
    inflate.PartialInflate.prefix = prefix
if os.environ.get("INFLATE_TEST") == "others":  # any section of the library but .debug_info
    from aliceserver.debuggers.symbols.dwarf import inflate
    from aliceserver.errors import TargetError
    _grow = inflate._Inflater._grow
    def grow(self, data, end, limit):
        if "libdeep" in self._where and ".debug_info" not in self._where:
            raise TargetError("inflated in the test")
        return _grow(self, data, end, limit)
    inflate._Inflater._grow = grow
if os.environ.get("INFLATE_TEST") == "cut":  # another process cuts the kept file once trusted
    from aliceserver.debuggers.symbols.dwarf import inflatedcache
    _kept = inflatedcache.kept
    def kept(sections, name, *rest):
        found = _kept(sections, name, *rest)
        if found is not None and "libdeep" in sections.path:
            cache, key = inflatedcache._by_path[sections.path]
            os.truncate(inflatedcache.path_for(cache, key, name), 64)
        return found
    inflatedcache.kept = kept
"""


def _filler(count: int) -> str:
    """A unit of `count` structs of many members, each used: 3,500 of them are 1.2 MB of
    DWARF (a compressed section over 1 MB is inflated as far as it is read: dwarffile.py),
    so that deep()'s unit starts far into the section."""
    parts = []
    for n in range(count):
        members = "".join(f"    long member_{n}_{m};\n" for m in range(24))
        parts.append(f"struct filler_{n} {{\n{members}}};\n")
        parts.append(f"long use_{n}(struct filler_{n} *p) {{ return p->member_{n}_3; }}\n")
    return "".join(parts)


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc not found")
    root = tmp_path_factory.mktemp("keptreads")
    (root / "filler.c").write_text(_filler(3500))
    (root / "deep.c").write_text((PROGRAMS_DIR / "lib_inlined_twice.c").read_text() + _DEEP)
    (root / "main.c").write_text(_MAIN)
    (root / "lib").mkdir()
    subprocess.run(["gcc", "-g", "-O0", "-gz=zlib", "-shared", "-fPIC", "filler.c", "deep.c",
                    "-o", "lib/libdeep.so"], cwd=root, check=True)  # fmt: skip
    subprocess.run(["gcc", "-g", "-O0", "main.c", "-Llib", "-ldeep", "-Wl,-rpath,$ORIGIN/lib",
                    "-o", "main"], cwd=root, check=True)  # fmt: skip
    (root / "custom").mkdir()
    (root / "custom" / "sitecustomize.py").write_text(_SITECUSTOMIZE)
    return root / "main"


@needs_gdb
def test_a_stop_deep_in_a_library_reads_its_units_from_the_kept_file(
    program: Path, tmp_path: Path
) -> None:
    gdb = normalized(theirs(["-nx", *_SECOND, str(program)], program.parent).stdout)
    assert "deep (first=1, second=7)" in gdb and "first = 1" in gdb
    cache = tmp_path / "cache"
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    ours_cached(program, _FIRST, cache, tmp_path / "first.log", program.parent / "custom", env)
    assert list(cache.glob("b-*-inflated_debug_info.v*.idx"))  # kept by the search
    log = tmp_path / "second.log"
    second = ours_cached(program, _SECOND, cache, log, program.parent / "custom",
                         {**env, "INFLATE_TEST": "fail"})  # fmt: skip
    assert normalized(second) == gdb
    assert "libdeep.so: .debug_info read inflated from the cache" in log.read_text()


@needs_gdb
def test_a_kept_file_cut_short_leaves_the_reads_to_the_section(
    program: Path, tmp_path: Path
) -> None:
    gdb = normalized(theirs(["-nx", *_SECOND, str(program)], program.parent).stdout)
    cache = tmp_path / "cache"
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    ours_cached(program, _FIRST, cache, tmp_path / "first.log", program.parent / "custom", env)
    log = tmp_path / "cut.log"
    cut = ours_cached(program, _SECOND, cache, log, program.parent / "custom",
                      {**env, "INFLATE_TEST": "cut"})  # fmt: skip
    assert normalized(cut) == gdb
    assert "libdeep.so: .debug_info kept inflated no longer readable" in log.read_text()


@needs_gdb
def test_the_other_sections_are_kept_whole_by_the_first_session_that_reads_them(
    program: Path, tmp_path: Path
) -> None:
    gdb = normalized(theirs(["-nx", *_SECOND, str(program)], program.parent).stdout)
    assert "deep (first=1, second=7) at deep.c:" in gdb
    cache = tmp_path / "cache"
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    first = ours_cached(program, _SECOND, cache, tmp_path / "first.log", program.parent / "custom",
                        env)  # fmt: skip
    assert normalized(first) == gdb
    for section in ("line", "abbrev", "str"):  # (read whole, or as far as the stop needed)
        assert list(cache.glob(f"b-*-inflated_debug_{section}.v*.idx")), section
    log = tmp_path / "second.log"
    second = ours_cached(program, _SECOND, cache, log, program.parent / "custom",
                         {**env, "INFLATE_TEST": "others"})  # fmt: skip
    assert normalized(second) == gdb
    assert "libdeep.so: .debug_line read inflated from the cache" in log.read_text()
