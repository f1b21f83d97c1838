"""Units whose DW_AT_language is a newer standard's code read as their language does: C++17
and C++20 as C++ (qualified type names, C++ type spelling), C17 as C (`struct point`,
`main(void)`). gcc 12 writes C++14 and C11 for those standards, so the test rewrites its
units' code to the newer one and expects what the unchanged program shows (itself checked
against gdb in test_language_setting and the type tests)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from elftools.dwarf.enums import ENUM_DW_LANG

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder, find_cxx
from tests.support.core_backend import core_of_stop
from tests.support.gdb import gdb_env
from tests.support.mi_console import console_at

pytestmark = [pytest.mark.timeout(240), needs_gdb, pytest.mark.both_backends]

_CPP_COMMANDS = ["show language", "whatis rect", "ptype geo::Base", "whatis geo::Counted::count",
                 "print sizeof(geo::Rect)", "info functions ^middle"]  # fmt: skip
_C_COMMANDS = ["show language", "whatis origin", "ptype point_t", "info functions ^main$"]


def _relabel(program: Path, old: str, new: str, out: Path) -> Path:
    """A copy of `program` whose units of language `old` say `new` (DW_LANG_ names)."""
    if shutil.which("readelf") is None:
        pytest.skip("needs readelf")
    old_code, new_code = ENUM_DW_LANG["DW_LANG_" + old], ENUM_DW_LANG["DW_LANG_" + new]
    info = subprocess.run(["readelf", "--debug-dump=info", str(program)], capture_output=True, text=True,
                          check=True).stdout  # fmt: skip
    table = subprocess.run(
        ["readelf", "-SW", str(program)], capture_output=True, text=True, check=True
    ).stdout
    found = re.search(r"\]\s+\.debug_info\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)", table)
    assert found is not None
    base = int(found[1], 16)
    data = bytearray(program.read_bytes())
    places = [int(m[1], 16) for m in re.finditer(r"<([0-9a-f]+)>\s+DW_AT_language\s*:\s*(\d+)", info)
              if int(m[2]) == old_code]  # fmt: skip
    assert places, f"no unit of {old} in {program}"
    for offset in places:
        assert data[base + offset] == old_code  # DW_FORM_data1, as gcc writes it
        data[base + offset] = new_code
    out.write_bytes(bytes(data))
    out.chmod(0o755)
    return out


@pytest.fixture(scope="module")
def cpp_program(builder: Builder) -> Path:
    if find_cxx() is None:
        pytest.skip("no C++ compiler")
    return MoreBuilder(builder.cache_dir).build_cpp("cpp_values")


@pytest.fixture(scope="module")
def c_program(builder: Builder) -> Path:
    return builder.build("symbol_search", also=("symbol_search_part",))


@pytest.mark.parametrize("standard", ["C_plus_plus_17", "C_plus_plus_20"])
def test_newer_cplus_units_read_as_cplus(standard: str, cpp_program: Path, tmp_path: Path, backend: str) -> None:
    relabelled = _relabel(cpp_program, "C_plus_plus_14", standard, tmp_path / cpp_program.name)
    expected = console_at(cpp_program, "measure", _CPP_COMMANDS, gdb_env(), core_of_stop(backend, tmp_path))
    assert expected[0] == 'The current source language is "auto; currently c++".'
    assert console_at(relabelled, "measure", _CPP_COMMANDS, gdb_env(), core_of_stop(backend, tmp_path)) == expected


def test_c17_units_read_as_c(c_program: Path, tmp_path: Path, backend: str) -> None:
    relabelled = _relabel(c_program, "C11", "C17", tmp_path / c_program.name)
    expected = console_at(c_program, "main", _C_COMMANDS, gdb_env(), core_of_stop(backend, tmp_path))
    assert expected[0] == 'The current source language is "auto; currently c".'
    assert console_at(relabelled, "main", _C_COMMANDS, gdb_env(), core_of_stop(backend, tmp_path)) == expected
