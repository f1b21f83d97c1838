"""The raw names index (globalnames.py) against pyelftools' parse of the same DIEs, its
on-disk cache, and its progress reports on a large debug file (libc6-dbg's, when present)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.dies import DwarfUnits
from aliceserver.debuggers.symbols.dwarf.globalnames import GlobalNameIndex
from aliceserver.debuggers.symbols.dwarf.sections import open_dwarf
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder, find_clang, find_cxx

LIBC_CANDIDATES = ("/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6",
                   "/lib64/libc.so.6")  # fmt: skip


def pyelftools_names(path: Path | str) -> set[tuple[str, int]]:
    """(last name component, CU offset) of every name DwarfUnits finds by a full parse."""
    units = DwarfUnits(ElfImage.load(str(path)))
    found = set()
    for offset in units.cu_offsets():
        for name in units.top_level_names(units.cu_at_offset(offset)):
            found.add((name.split("::")[-1], offset))
    return found


def indexed_names(path: Path | str, cache: IndexCache | None = None) -> set[tuple[str, int]]:
    image = ElfImage.load(str(path))
    names = GlobalNameIndex(str(path), image.build_id, cache).names() or {}
    return {(name, offset) for name, offsets in names.items() for offset in offsets}


@pytest.mark.parametrize(
    ("program", "flags"),
    [("src_basic", ("-g", "-O0")), ("src_opt", ("-g", "-O2")), ("src_basic", ("-gdwarf-4",)),
     ("src_threads", ("-g", "-O0", "-pthread"))],
)  # fmt: skip
def test_c_programs_index_what_a_full_parse_finds(
    builder: Builder, program: str, flags: tuple[str, ...]
) -> None:
    path = builder.build(program, flags)
    assert indexed_names(path) == pyelftools_names(path)


@pytest.mark.skipif(find_cxx() is None, reason="g++ not installed")
@pytest.mark.parametrize("flags", [("-g", "-O0"), ("-g", "-O2"), ("-g", "-O2", "-flto")])
def test_cpp_out_of_class_definitions_are_indexed(
    tmp_path_factory: pytest.TempPathFactory, flags: tuple[str, ...]
) -> None:
    """Methods defined outside their class take their name from DW_AT_specification (across
    units with LTO); they are found under it, like namespace members and enumerators."""
    path = MoreBuilder(tmp_path_factory.mktemp("cpp")).build_cpp("src_cpp", flags)
    names = indexed_names(path)
    assert names == pyelftools_names(path)
    assert {"add", "value"} <= {name for name, _ in names}


@pytest.mark.skipif(find_clang() is None, reason="clang not installed: it writes DWARF 5's indexed forms")
@pytest.mark.parametrize(
    ("suffix", "flags"), [(".c", ("-g", "-O0")), (".c", ("-g", "-O2")), (".cpp", ("-g", "-O0"))]
)
def test_clang_names_through_str_offsets_are_indexed(
    tmp_path_factory: pytest.TempPathFactory, suffix: str, flags: tuple[str, ...]
) -> None:
    """clang names DIEs with DW_FORM_strx (.debug_str_offsets from DW_AT_str_offsets_base)."""
    path = MoreBuilder(tmp_path_factory.mktemp("clang")).build_clang("clang_forms", flags, suffix)
    names = indexed_names(path)
    assert names == pyelftools_names(path)
    wanted = {"main", "larger<int>", "Box"} if suffix == ".cpp" else {"weigh", "g_origin", "s_hidden"}
    assert wanted <= {name for name, _ in names}


def test_the_index_is_cached_by_build_id(builder: Builder, tmp_path: Path) -> None:
    path = builder.build("src_basic")
    cache = IndexCache(str(tmp_path))
    first = indexed_names(path, cache)
    assert any("-names." in name for name in os.listdir(tmp_path))
    assert indexed_names(path, cache) == first


def libc_debug_file() -> str | None:
    for path in LIBC_CANDIDATES:
        if os.path.exists(path):
            opened = open_dwarf(path, ElfImage.load(path).build_id)
            if opened is not None and opened[1].path != opened[0].path:
                return opened[1].path
    return None


def test_a_large_debug_file_reports_progress_once(tmp_path: Path) -> None:
    debug_file = libc_debug_file()
    if debug_file is None:
        pytest.skip("no separate debug file for libc (install libc6-dbg)")
    image = ElfImage.load(debug_file)
    reports: list[tuple[str, float | None]] = []
    cache = IndexCache(str(tmp_path))

    def progress(message: str, fraction: float | None) -> None:
        reports.append((message, fraction))

    names = GlobalNameIndex(debug_file, image.build_id, cache, progress).names()
    assert names is not None and names["program_invocation_name"]
    assert reports[0][1] == 0.0 and reports[-1][1] == 1.0
    assert all(0.0 <= (fraction or 0.0) <= 1.0 for _, fraction in reports)
    reports.clear()
    again = GlobalNameIndex(debug_file, image.build_id, cache, progress).names()
    assert again == names and reports == []  # from the cache: over before anyone could watch
