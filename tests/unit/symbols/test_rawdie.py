"""rawdie: DIEs read by their abbreviation's plan agree with pyelftools' construct parse of
the same bytes, attribute by attribute (name, form, value, raw value, offset), for gcc's
DWARF 4 and 5, g++, clang's indexed forms, rustc and the system libc's debug file."""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from elftools.dwarf.compileunit import CompileUnit
from elftools.dwarf.die import DIE

from aliceserver.debuggers.symbols.dwarf import rawdie
from aliceserver.debuggers.symbols.dwarf.dies import DwarfUnits
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder, find_clang, find_cxx, find_rustc

_UNITS = 40  # units compared per file (a big file's first ones)


def _pyelftools(die: DIE) -> DIE:
    """The DIE at the same place, parsed by pyelftools itself."""
    return DIE(die.cu, die.stream, die.offset)


def _dies(units: DwarfUnits) -> Iterator[tuple[CompileUnit, DIE]]:
    for offset in units.cu_offsets()[:_UNITS]:
        cu = units.cu_at_offset(offset)
        for die in cu.iter_DIEs():
            yield cu, die


def _compare(path: Path) -> tuple[int, int]:
    """(DIEs compared, not counting the null ones, of them read by a plan)."""
    units = DwarfUnits(ElfImage.load(str(path)))
    compared = planned = 0
    try:
        for cu, die in _dies(units):
            theirs = _pyelftools(die)
            assert type(die) is rawdie.RawDIE
            mine = (die.tag, die.has_children, die.size, die.abbrev_code, die.attributes)
            assert mine == (theirs.tag, theirs.has_children, theirs.size, theirs.abbrev_code,
                            theirs.attributes), f"{path.name}: DIE at {die.offset:#x}"  # fmt: skip
            if die.is_null():
                continue
            compared += 1
            plans = cu.get_abbrev_table().plans  # type: ignore[attr-defined]
            planned += any(key[0] == die.abbrev_code and plan is not None for key, plan in plans.items())
    finally:
        units.close()
    return compared, planned


@pytest.mark.parametrize("flags", [("-g", "-O0"), ("-g", "-O2"), ("-gdwarf-4", "-O2"), ("-g3", "-O1")])
@pytest.mark.parametrize("program", ["calls", "entry_values", "src_inline", "src_basic"])
def test_gcc_dies_match_pyelftools(builder: Builder, program: str, flags: tuple[str, ...]) -> None:
    compared, planned = _compare(builder.build(program, flags))
    assert compared > 20 and planned > compared * 0.9


@pytest.mark.skipif(find_cxx() is None, reason="g++ not installed")
@pytest.mark.parametrize("program", ["cpp_values", "cpp_big_containers"])
def test_gxx_dies_match_pyelftools(tmp_path_factory: pytest.TempPathFactory, program: str) -> None:
    path = MoreBuilder(tmp_path_factory.mktemp("cxx")).build_cpp(program, ("-g", "-O2"))
    compared, planned = _compare(path)
    assert compared > 300 and planned > compared * 0.9


@pytest.mark.skipif(find_clang() is None, reason="clang not installed: it writes DWARF 5's indexed forms")
def test_clang_dies_match_pyelftools(tmp_path_factory: pytest.TempPathFactory) -> None:
    path = MoreBuilder(tmp_path_factory.mktemp("clang")).build_clang("entry_values", ("-g", "-O2"))
    compared, planned = _compare(path)
    assert compared > 20 and planned > compared * 0.9


@pytest.mark.skipif(find_rustc() is None, reason="rustc not installed")
def test_rust_dies_match_pyelftools(tmp_path_factory: pytest.TempPathFactory) -> None:
    path = MoreBuilder(tmp_path_factory.mktemp("rust")).build_rust("rust_values")
    compared, planned = _compare(path)
    assert compared > 1000 and planned > compared * 0.9


def _libc_debug_file() -> Path | None:
    """The debug file of the system's libc (libc6-dbg), by its build id."""
    image = ElfImage.load(os.path.realpath("/lib/x86_64-linux-gnu/libc.so.6"))
    build_id = image.build_id
    if not build_id:
        return None
    found = glob.glob(f"/usr/lib/debug/.build-id/{build_id[:2]}/{build_id[2:]}.debug")
    return Path(found[0]) if found else None


@pytest.mark.skipif(not os.path.exists("/lib/x86_64-linux-gnu/libc.so.6") or _libc_debug_file() is None,
                    reason="no debug file of libc (libc6-dbg)")  # fmt: skip
def test_libc_debug_file_dies_match_pyelftools() -> None:
    """Compressed sections, DWARF 5, strings of its own .debug_line_str."""
    path = _libc_debug_file()
    assert path is not None
    compared, planned = _compare(path)
    assert compared > 1000 and planned > compared * 0.9


def test_a_form_without_a_plan_is_read_by_pyelftools(builder: Builder, monkeypatch: pytest.MonkeyPatch) -> None:
    """An abbreviation with a form rawdie does not read (here: the string forms, taken
    from its table) gives pyelftools' DIE all the same."""
    for form in ("DW_FORM_strp", "DW_FORM_string", "DW_FORM_line_strp"):
        monkeypatch.delitem(rawdie._FORMS, form)
    compared, planned = _compare(builder.build("calls", ("-g", "-O2")))
    assert compared > 20 and planned < compared * 0.7  # most DIEs have a name


def test_a_die_longer_than_the_window_is_read_whole(builder: Builder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rawdie, "_WINDOW", 3)  # every DIE of more than 3 bytes is read again
    compared, planned = _compare(builder.build("src_inline", ("-g", "-O2")))
    assert compared > 20 and planned > compared * 0.9
