"""The on-disk index cache: reuse, invalidation, damage."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import time
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.symbols import elf as elf_module
from aliceserver.debuggers.symbols.dwarf import index as index_module
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.index import DebugInfo
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.unit.symbols.dwarf_lines.support import C_SOURCES, Builder


def _load(path: Path, cache: IndexCache) -> DebugInfo:
    info = DebugInfo.load(ElfImage.load(str(path)), cache=cache)
    assert info is not None
    return info


def _cache_files(cache: IndexCache) -> list[str]:
    """The cache's files (not its sweep stamp, .swept)."""
    return [name for name in os.listdir(cache.directory) if not name.startswith(".")]


def _forbid_building(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*_args: object) -> None:
        raise AssertionError("the index was rebuilt instead of read from the cache")

    monkeypatch.setattr(index_module, "build_name_part", fail)
    monkeypatch.setattr(index_module, "build_line_part", fail)


def test_second_load_is_served_from_disk(
    builder: Builder, cache: IndexCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = builder.build(C_SOURCES, ("-g", "-O0"))
    started = time.perf_counter()
    first = _load(program, cache)
    first.resolve_line("a.c", 8)  # the line part is built (and stored) by the first query
    cold = time.perf_counter() - started
    files = _cache_files(cache)
    assert len(files) == 1
    assert stat.S_IMODE(os.stat(cache.directory).st_mode) == 0o700
    _forbid_building(monkeypatch)
    started = time.perf_counter()
    second = _load(program, cache)
    warm = time.perf_counter() - started
    print(f"index load: cold {cold * 1000:.1f} ms, warm {warm * 1000:.1f} ms")
    assert second.resolve_line("a.c", 8) == first.resolve_line("a.c", 8)
    assert second.functions_named("compute") == first.functions_named("compute")
    assert second.source_files() == first.source_files()


def test_modified_binary_invalidates(builder: Builder, cache: IndexCache, tmp_path: Path) -> None:
    program = tmp_path / "prog"
    shutil.copy(builder.build(C_SOURCES, ("-g", "-O0")), program)
    before = _load(program, cache).resolve_line("a.c", 8)
    changed = dict(C_SOURCES)
    changed["src/a.c"] = "\n\n" + C_SOURCES["src/a.c"]  # every line moves down by two
    shutil.copy(builder.build(changed, ("-g", "-O0")), program)
    after = _load(program, cache).resolve_line("a.c", 10)
    assert before is not None and after is not None
    assert after.line == 10 and before.line == 8


def test_same_build_id_but_other_file_rebuilds(
    builder: Builder, cache: IndexCache, tmp_path: Path
) -> None:
    program = tmp_path / "prog"
    shutil.copy(builder.build(C_SOURCES, ("-g", "-O0")), program)
    _load(program, cache)
    os.utime(program, ns=(1, 1))  # same bytes, other mtime: the identity no longer matches
    assert _load(program, cache).resolve_line("a.c", 8) is not None


@pytest.mark.parametrize(
    "garbage",
    [b"", b"not a cache", b"ALICEIDX\x01\x00\x00\x00garbage",
     b"ALICEIDX\x01\x00\x00\x00" + b"\x80\x05cos\nsystem\n."],
)  # fmt: skip
def test_damaged_cache_file_is_ignored_and_rewritten(
    builder: Builder, cache: IndexCache, garbage: bytes
) -> None:
    program = builder.build(C_SOURCES, ("-g", "-O0"))
    first = _load(program, cache)
    (name,) = _cache_files(cache)
    path = os.path.join(cache.directory, name)
    with open(path, "wb") as stream:
        stream.write(garbage)
    again = _load(program, cache)
    assert again.resolve_line("util.h", 3) == first.resolve_line("util.h", 3)
    with open(path, "rb") as stream:
        assert stream.read().startswith(b"ALICEIDX")


def test_unwritable_cache_directory_does_not_fail(builder: Builder, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    cache = IndexCache(str(blocker / "sub"))
    assert _load(builder.build(C_SOURCES, ("-g", "-O0")), cache).has_line_info()


def test_default_directory_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert IndexCache().directory == str(tmp_path / "aliceserver" / "index")


def test_function_list_is_served_from_disk(
    builder: Builder, cache: IndexCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = builder.build(C_SOURCES, ("-g", "-O0"))
    first = _load(program, cache).functions_named("helper")
    assert [f.name for f in first] == ["helper"]
    _forbid_building(monkeypatch)

    def fail(*_args: object) -> None:
        raise AssertionError("the symbol table was parsed instead of the cached list read")

    monkeypatch.setattr(ElfImage, "function_symbols", fail)
    assert _load(program, cache).functions_named("helper") == first


def test_modified_binary_invalidates_the_function_list(
    builder: Builder, cache: IndexCache, tmp_path: Path
) -> None:
    program = tmp_path / "prog"
    shutil.copy(builder.build(C_SOURCES, ("-g", "-O0")), program)
    assert _load(program, cache).functions_named("helper")
    changed = dict(C_SOURCES)
    changed["src/b.c"] = C_SOURCES["src/b.c"] + "\nint helper_two(int v) { return v; }\n"
    shutil.copy(builder.build(changed, ("-g", "-O0")), program)
    again = _load(program, cache)
    assert [f.name for f in again.functions_named("helper_two")] == ["helper_two"]
    assert [f.name for f in again.functions_named("helper")] == ["helper"]


def test_index_without_a_function_list_is_rebuilt(
    builder: Builder, cache: IndexCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = builder.build(C_SOURCES, ("-g", "-O0"))
    store = IndexCache.store

    def store_without_functions(
        self: IndexCache, key: str, identity: Hashable, payload: dict[str, Any]
    ) -> None:  # as an index written before the list was kept
        store(self, key, identity, {k: v for k, v in payload.items() if k != "functions"})

    monkeypatch.setattr(IndexCache, "store", store_without_functions)
    _load(program, cache)
    monkeypatch.undo()
    assert [f.name for f in _load(program, cache).functions_named("compute")] == ["compute"]
    _forbid_building(monkeypatch)  # the rebuilt index, list included, was written back
    assert [f.name for f in _load(program, cache).functions_named("compute")] == ["compute"]


def test_symbol_table_is_served_from_disk(
    builder: Builder, cache: IndexCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = builder.build(C_SOURCES, ("-g", "-O0"))
    parsed = ElfImage.load(str(program))
    expected = parsed.symbols()  # parsed before parsing is forbidden
    _load(program, cache)

    def fail(*_args: object) -> None:
        raise AssertionError("the symbol table was parsed instead of read from the cache")

    monkeypatch.setattr(elf_module, "_build_table", fail)
    image = ElfImage.load(str(program))
    assert DebugInfo.load(image, cache=cache) is not None
    assert image.symbols() == expected
    helper = parsed.find_symbol("helper")
    assert helper is not None and image.find_symbol("helper") == helper
    assert image.symbol_at(helper.address + 1) == parsed.symbol_at(helper.address + 1)
    for symbol in expected:  # the address index read from disk names what parsing names
        for address in (symbol.address, symbol.address + max(symbol.size - 1, 0)):
            assert image.symbol_at(address) == parsed.symbol_at(address)


def test_modified_binary_invalidates_the_symbol_table(
    builder: Builder, cache: IndexCache, tmp_path: Path
) -> None:
    program = tmp_path / "prog"
    shutil.copy(builder.build(C_SOURCES, ("-g", "-O0")), program)
    _load(program, cache)
    changed = dict(C_SOURCES)
    changed["src/b.c"] = C_SOURCES["src/b.c"] + "\nint helper_two(int v) { return v; }\n"
    shutil.copy(builder.build(changed, ("-g", "-O0")), program)
    image = ElfImage.load(str(program))
    assert DebugInfo.load(image, cache=cache) is not None
    assert image.symbols() == ElfImage.load(str(program)).symbols()
    assert image.find_symbol("helper_two") is not None


def _split(program: Path, where: Path) -> Path:
    """`program` stripped of its symbols and DWARF, which go to `where`/prog.debug (found
    by debuglink, as libc6-dbg's files are by build id); the stripped file's path."""
    debug, stripped = where / "prog.debug", where / "prog"
    for args in (("--only-keep-debug", str(program), str(debug)),
                 ("--strip-all", f"--add-gnu-debuglink={debug}", str(program), str(stripped))):  # fmt: skip
        subprocess.run(["objcopy", *args], check=True, capture_output=True)
    return stripped


def test_a_debug_files_symbol_table_is_read_from_the_cache_in_the_next_session(
    builder: Builder, cache: IndexCache, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stripped = _split(builder.build(C_SOURCES, ("-g", "-O0")), tmp_path)
    info = _load(stripped, cache)
    assert info.debug_file == str(tmp_path / "prog.debug")
    first = ElfImage.load(info.debug_file)
    info.adopt_debug_file_symbols(first)  # parsed, and kept
    expected = first.symbols()
    assert first.find_symbol("helper") is not None  # only the debug file names it

    def fail(*_args: object) -> None:
        raise AssertionError("the debug file's symbol table was parsed instead of read from the cache")

    monkeypatch.setattr(elf_module, "_build_table", fail)
    second = ElfImage.load(info.debug_file)
    _load(stripped, cache).adopt_debug_file_symbols(second)
    assert second.symbols() == expected


def test_a_rebuilt_programs_debug_file_symbols_are_read_anew(
    builder: Builder, cache: IndexCache, tmp_path: Path
) -> None:
    stripped = _split(builder.build(C_SOURCES, ("-g", "-O0")), tmp_path)
    info = _load(stripped, cache)
    before = ElfImage.load(info.debug_file)
    info.adopt_debug_file_symbols(before)
    assert before.find_symbol("helper_two") is None
    changed = dict(C_SOURCES)
    changed["src/b.c"] = C_SOURCES["src/b.c"] + "\nint helper_two(int v) { return v; }\n"
    for path in tmp_path.glob("prog*"):
        path.unlink()  # a new build, as a linker and objcopy write them
    _split(builder.build(changed, ("-g", "-O0")), tmp_path)
    info = _load(stripped, cache)
    after = ElfImage.load(info.debug_file)
    info.adopt_debug_file_symbols(after)
    assert after.find_symbol("helper_two") is not None
    assert after.symbols() == ElfImage.load(info.debug_file).symbols()


def test_remembered_answers_in_a_burst_are_written_together_and_kept(
    builder: Builder, cache: IndexCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    # rbreak . on 10,000 functions remembers 10,000 answers: a write each (each one holding
    # all so far) took 30 s; a burst is written at most twice a second, the rest later.
    program = builder.build(C_SOURCES, ("-g", "-O0"))
    info = _load(program, cache)
    now = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])  # (index.py's clock)
    writes: list[str] = []
    real_store = cache.store

    def counting(key: str, identity: Hashable, payload: dict[str, Any]) -> None:
        writes.append(key)
        real_store(key, identity, payload)

    monkeypatch.setattr(cache, "store", counting)
    for n in range(200):
        info.remember("inline", f"f{n}", [n])
    assert len(writes) == 1  # the first at once, the others within the same instant
    now[0] += 1.0
    assert info.remembered("inline", "f199") == [199]  # asked later: what is left is written
    assert len(writes) == 2
    again = _load(program, cache)
    assert [again.remembered("inline", f"f{n}") for n in (0, 100, 199)] == [[0], [100], [199]]


def test_remembered_answers_of_two_sessions_are_both_kept(builder: Builder, cache: IndexCache) -> None:
    # Every session remembers answers of ld.so's: a write held only the writer's (those read
    # at its start and its own), so a session's 10,000 rbreak answers were dropped by the
    # next session's write, and rbreak . searched ld.so's DWARF for each name again.
    program = builder.build(C_SOURCES, ("-g", "-O0"))
    first, second = _load(program, cache), _load(program, cache)
    assert second.remembered("inline", "f1") is None  # read before the first one writes
    first.remember("inline", "f1", [1])
    second.remember("inline", "f2", [2])
    again = _load(program, cache)
    assert [again.remembered("inline", n) for n in ("f1", "f2")] == [[1], [2]]
