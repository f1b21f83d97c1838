"""gdb's sysroot and solib-search-path lookups (solib.c's solib_find_1) over a made-up tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from aliceserver.debuggers.librarypaths import LibraryPaths


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name in ("sysroot/lib/libc.so.6", "sysroot/lib/ld-linux-aarch64.so.1", "search/libextra.so"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"\x7fELF")
    return tmp_path


def test_the_default_target_sysroot_reads_a_local_target_as_is(tree: Path) -> None:
    paths = LibraryPaths()
    library = str(tree / "sysroot/lib/libc.so.6")
    assert paths.find(library) == library
    assert paths.find("/no/such/lib.so") is None
    # a stub that transfers files: read through it, named as gdb names it
    assert paths.find("/lib/libc.so.6", local_target=False) == "target:/lib/libc.so.6"


def test_a_sysroot_prefixes_absolute_names_only_and_finds_nothing_else(tree: Path) -> None:
    paths = LibraryPaths()
    paths.set_sysroot(f"{tree}/sysroot/")  # a trailing slash is dropped
    assert paths.find("/lib/libc.so.6") == f"{tree}/sysroot/lib/libc.so.6"
    assert paths.find("/lib/libm.so.6") is None  # not the host's own: gdb loads nothing
    assert paths.joined("/lib/libm.so.6") == f"{tree}/sysroot/lib/libm.so.6"
    assert paths.joined("linux-vdso.so.1") == "linux-vdso.so.1"
    paths.set_sysroot("/")
    assert paths.joined("/lib/libm.so.6") == "/lib/libm.so.6"


def test_the_search_path_tries_each_directory_for_the_base_name(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree)
    paths = LibraryPaths()
    paths.set_sysroot(str(tree / "empty"))
    assert paths.find("/usr/lib/libextra.so") is None
    paths.set_search_path(f"/nowhere:{tree}/search")
    assert paths.find("/usr/lib/libextra.so") == str(tree / "search/libextra.so")
    # a name with directories is tried from the working directory as it is first
    assert paths.find("/sysroot/lib/libc.so.6") == str(tree / "sysroot/lib/libc.so.6")


def test_each_change_bumps_the_version() -> None:
    paths = LibraryPaths()
    before = paths.version
    paths.set_sysroot("/x")
    paths.set_search_path("/y")
    assert paths.version == before + 2
