"""One size bound over the whole cache directory (indexes, line rows, other versions' files):
the files used longest ago go first; a read counts as a use."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.cachedir import (
    SWEEP_EVERY,
    CacheDirectory,
    default_directory,
    default_limit,
    parse_size,
)
from aliceserver.debuggers.symbols.dwarf.index import DebugInfo
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.unit.symbols.dwarf_lines.support import C_SOURCES, Builder


def _variant(number: int) -> dict[str, str]:
    sources = dict(C_SOURCES)
    sources["src/b.c"] = C_SOURCES["src/b.c"] + f"\nint variant_{number}(int v) {{ return v + {number}; }}\n"
    return sources


def _load(path: Path, cache: IndexCache) -> DebugInfo:
    info = DebugInfo.load(ElfImage.load(str(path)), cache=cache)
    assert info is not None and info.resolve_line("a.c", 8) is not None
    return info


def _keys(directory: Path) -> set[str]:
    return {entry.key for entry in CacheDirectory(str(directory)).usage().entries}


def _key(path: Path) -> str:
    image = ElfImage.load(str(path))
    stat = path.stat()
    return IndexCache.key_for(image.build_id, str(path), stat.st_mtime_ns, stat.st_size)


def _age_all(directory: Path, seconds: float) -> None:
    """Every file of the cache as if last used `seconds` ago (mtimes are the use order)."""
    when = time.time() - seconds
    for path in directory.rglob("*"):
        if path.is_file():
            os.utime(path, (when, when))


@pytest.fixture
def programs(builder: Builder) -> list[Path]:
    return [builder.build(_variant(number), ("-g", "-O0")) for number in range(3)]


def test_the_entries_used_longest_ago_go_first(programs: list[Path], tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    _load(programs[0], IndexCache(str(directory)))
    one_entry = CacheDirectory(str(directory)).usage().size
    limit = one_entry * 5 // 2  # room for two programs' indexes, not three
    _age_all(directory, 300)
    _load(programs[1], IndexCache(str(directory), limit))
    _age_all(directory, 200)
    _load(programs[0], IndexCache(str(directory), limit))  # read: now the latest used
    assert _keys(directory) == {_key(programs[0]), _key(programs[1])}
    _load(programs[2], IndexCache(str(directory), limit))
    assert _keys(directory) == {_key(programs[0]), _key(programs[2])}
    assert CacheDirectory(str(directory)).usage().size <= limit


def test_other_versions_files_count_and_go_first(programs: list[Path], tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    directory.mkdir()
    old = directory / "b-0123abcd.v1.idx"  # an older aliceserver's, used long ago
    old.write_bytes(b"x" * 100_000)
    os.utime(old, (1, 1))
    partial = directory / ".tmp-dead.idx"  # a writer's that died an hour ago
    partial.write_bytes(b"y" * 10)
    os.utime(partial, (1, 1))
    _load(programs[0], IndexCache(str(directory), limit=100_000))
    assert not old.exists() and not partial.exists()
    assert _keys(directory) == {_key(programs[0])}


def test_a_single_entry_over_the_bound_is_still_written(programs: list[Path], tmp_path: Path) -> None:
    """The file just written is never the one evicted (a bound below one index: each
    session writes its own and removes the others)."""
    directory = tmp_path / "cache"
    _load(programs[0], IndexCache(str(directory), limit=1))
    _load(programs[1], IndexCache(str(directory), limit=1))
    assert _keys(directory) == {_key(programs[1])}


def test_the_directory_and_bound_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("ALICESERVER_CACHE_DIR", raising=False)
    assert default_directory() == str(tmp_path / "xdg" / "aliceserver" / "index")
    monkeypatch.setenv("ALICESERVER_CACHE_DIR", str(tmp_path / "mine"))
    assert IndexCache().directory == str(tmp_path / "mine")
    assert parse_size("512M") == 512 << 20 and parse_size("2g") == 2 << 30 and parse_size("1000") == 1000
    assert parse_size("1.5KB") == 1536
    monkeypatch.setenv("ALICESERVER_CACHE_SIZE", "64M")
    assert default_limit() == 64 << 20 and IndexCache().space.limit == 64 << 20
    monkeypatch.setenv("ALICESERVER_CACHE_SIZE", "lots")
    assert default_limit() == 1 << 30


def test_sessions_sweep_at_most_every_ten_minutes(programs: list[Path], tmp_path: Path) -> None:
    """A sweep lists every file of the directory: a session sweeps at its first write only
    when no session did within SWEEP_EVERY (the stamp file's mtime), or once it has written
    1/32 of the bound itself."""
    directory = tmp_path / "cache"
    _load(programs[0], IndexCache(str(directory)))  # swept: stamped
    limit = 80 * CacheDirectory(str(directory)).usage().size  # a session writes under 1/32 of it
    old = directory / "b-0123abcd.v1.idx"
    old.write_bytes(b"x" * 2 * limit)
    os.utime(old, (1, 1))
    _load(programs[1], IndexCache(str(directory), limit))
    assert old.exists()  # over the bound, but swept a moment ago
    when = time.time() - SWEEP_EVERY - 1
    os.utime(directory / ".swept", (when, when))
    _load(programs[2], IndexCache(str(directory), limit))
    assert not old.exists()
    assert _keys(directory) == {_key(p) for p in programs}
