"""Queries by address before the line part is built (addresslines.py): `break NAME` and the
first stop read only the units they are in, and answer what the whole line part answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.symbols.dwarf import addresslines
from aliceserver.debuggers.symbols.dwarf import index as index_module
from aliceserver.debuggers.symbols.dwarf import units as units_module
from aliceserver.debuggers.symbols.dwarf.addresslines import AddressLineIndex, address_line_index
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.linerows import LineIndex
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.unit.symbols.dwarf_lines.support import C_SOURCES, Builder, load

# A unit of data only: no code, so no .debug_aranges entry (CPython's pyctype.c)
DATA_C = "const int table[4] = {1, 2, 3, 4};\n"
SOURCES = {**C_SOURCES, "src/d.c": DATA_C}
_QUERIES = ("location_at", "row_span", "line_range_at", "row_range_at", "next_row_address",
            "is_statement_start")  # fmt: skip


@pytest.fixture(autouse=True)
def _as_a_program_of_many_units(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    """These small programs stand for big ones, which are read by address."""
    if "few_units" not in request.node.name:
        monkeypatch.setattr(addresslines, "_FEW_UNITS", 0)


def test_a_program_of_few_units_builds_its_whole_line_part(builder: Builder, cache: IndexCache,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """Its whole part is a few headers, kept with the index for later sessions (a program of
    one big unit read its unit again in every session)."""
    program = builder.build(SOURCES, ("-g", "-O0"))
    whole = load(program)
    expected = [whole.location_at(f.breakpoint_address) for f in whole.functions_named("helper")]
    built = _count_builds(monkeypatch)
    fresh = load(program, cache=cache)
    assert [fresh.location_at(f.breakpoint_address) for f in fresh.functions_named("helper")] == expected
    assert built == [1]


def _count_builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    built: list[int] = []
    real = units_module.build_line_part

    def counting(*args: Any) -> dict[str, Any]:
        built.append(1)
        return real(*args)

    monkeypatch.setattr(index_module, "build_line_part", counting)
    return built


@pytest.mark.parametrize("flags", [("-g", "-O0"), ("-g", "-O2")])
def test_break_by_name_and_its_stop_build_no_line_part(
    builder: Builder, cache: IndexCache, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    flags: tuple[str, ...],
) -> None:  # fmt: skip
    program = builder.build(SOURCES, flags)
    whole = load(program)
    whole.source_files()  # (its line part built)
    expected = [(f, whole.location_at(f.breakpoint_address)) for f in whole.functions_named("helper")]
    built = _count_builds(monkeypatch)
    fresh = load(program, cache=cache)
    found = [(f, fresh.location_at(f.breakpoint_address)) for f in fresh.functions_named("helper")]
    assert found == expected and expected
    assert fresh.unit_offsets() == whole.unit_offsets()
    assert built == []
    assert fresh.resolve_line("b.c", 5) == whole.resolve_line("b.c", 5)  # by file: the whole part
    assert built == [1]


@pytest.mark.parametrize("flags", [("-g", "-O0"), ("-g", "-O2"), ("-g", "-O2", "-gdwarf-4")])
def test_every_address_is_answered_as_the_whole_line_part_answers(
    builder: Builder, flags: tuple[str, ...]
) -> None:
    program = builder.build(SOURCES, flags)
    image = ElfImage.load(str(program))
    dwarf = ElfSections(str(program))
    parts = units_module.build_line_part(image, dwarf)
    whole = LineIndex(dwarf, parts["units"], parts["paths"], parts["headers"], parts["ranges"])
    partial = address_line_index(dwarf, None)
    assert isinstance(partial, AddressLineIndex)
    assert partial.unit_offsets() == [unit[0] for unit in parts["units"]]  # the data unit's too
    for _name, low, size in image.function_symbols():
        for address in range(low - 1, low + size + 1):
            for query in _QUERIES:
                assert getattr(partial, query)(address) == getattr(whole, query)(address), (query, address)
            assert partial.rows_between(address, address + 32) == whole.rows_between(address, address + 32)
            assert partial.prologue_end(address, address + 32) == whole.prologue_end(address, address + 32)
            unit, other = partial.unit_at(address), whole.unit_at(address)
            assert (unit is None) == (other is None)
            assert unit is None or other is None or partial.unit(unit) == whole.unit(other)
    for offset, *_rest in parts["units"]:
        for number in range(4):
            assert partial.file_path(offset, number) == whole.file_path(offset, number)
