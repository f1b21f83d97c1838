"""The line rows the prologue rules read (linerows.py): prologue_end found in the flags'
bytes answers as the scan of every LineRow of the function did, at every function."""

from __future__ import annotations

import shutil

import pytest

from aliceserver.debuggers.symbols.dwarf.lines import PROLOGUE_END
from aliceserver.debuggers.symbols.dwarf.prologue import LineRow
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.support.build_more import find_clang
from tests.unit.symbols.dwarf_lines.support import C_SOURCES, Builder, load


def _scanned(rows: list[LineRow]) -> int | None:
    """The rule as the rows spelled it: the first prologue_end row of the entry's file."""
    entry = next((r for r in rows if r.address == rows[0].address), None) if rows else None
    for row in rows:
        if row.flags & PROLOGUE_END and entry is not None and row.path == entry.path:
            return row.address
    return None


@pytest.mark.parametrize(("tool", "flags"), [("gcc", ("-g", "-O0")), ("gcc", ("-g", "-O2")),
                                             ("clang", ("-g", "-O0")), ("clang", ("-g", "-O2"))])  # fmt: skip
def test_prologue_end_as_the_rows_say(builder: Builder, tool: str, flags: tuple[str, ...]) -> None:
    compiler = find_clang() if tool == "clang" else shutil.which(tool)  # setup installs clang-16
    if compiler is None:
        pytest.skip(f"{tool} not installed")
    program = builder.build(C_SOURCES, flags, tool=compiler)
    info = load(program)
    marked = 0
    for _name, low, size in ElfImage.load(str(program)).function_symbols():
        for start, end in ((low, low + size), (low + 1, low + size), (low, low + size // 2)):
            rows = info.rows_between(start, end)
            assert all(start <= r.address < end for r in rows)
            assert info.prologue_end(start, end) == _scanned(rows), (hex(start), hex(end))
            marked += info.prologue_end(start, end) is not None
    assert marked > 0 or tool == "gcc"  # gcc marks no prologue_end; clang does


def test_marked_rows_are_found_as_the_rows_say(builder: Builder) -> None:
    """gcc marks no row prologue_end: mark some of its rows (in memory) and compare."""
    program = builder.build(C_SOURCES, ("-g", "-O2"))
    info = load(program)
    functions = ElfImage.load(str(program)).function_symbols()
    for _name, low, _size in functions:
        info.location_at(low)  # decodes its unit's rows
    tables = list(info._lines._rows.values())
    assert tables
    for table in tables:
        for k in range(1, len(table), 2):
            table.flags[k] |= PROLOGUE_END
    marked = 0
    for _name, low, size in functions:
        rows = info.rows_between(low, low + size)
        found = info.prologue_end(low, low + size)
        assert found == _scanned(rows), hex(low)
        marked += found is not None and found != low
    assert marked > 0
