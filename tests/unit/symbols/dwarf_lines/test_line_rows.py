"""The line-table row around an address, the range a `next`/`step` stays in, against gdb's
`info line *ADDR` (its find_pc_line: [start of the row, start of the next row at a higher
address), whatever that row's line)."""

from __future__ import annotations

import re

import pytest

from tests.unit.symbols.dwarf_lines.support import C_SOURCES, Builder, _gdb, load, need_gdb

_RANGE = re.compile(r"Line \d+ of \"[^\"]+\" starts at address (0x[0-9a-f]+) .*and ends at (0x[0-9a-f]+)")
FUNCTIONS = ["main", "compute", "add", "helper"]


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_row_ranges_match_gdb(builder: Builder, level: str) -> None:
    need_gdb()
    program = builder.build(C_SOURCES, ("-g", level))
    info = load(program)
    addresses: list[int] = []
    for name in FUNCTIONS:
        (function,) = info.functions_named(name)
        addresses += range(function.low, function.high)
    commands = []
    for address in addresses:
        commands += [f"echo @@{address}\\n", f"info line *{address:#x}"]
    theirs: dict[int, tuple[int, int]] = {}
    current = 0
    for line in _gdb(program, commands).splitlines():
        if line.startswith("@@"):
            current = int(line[2:])
        elif match := _RANGE.search(line):
            theirs[current] = (int(match.group(1), 16), int(match.group(2), 16))
    assert len(theirs) > len(addresses) // 2, "gdb's output was not understood"
    for address, expected in theirs.items():
        assert info.row_range_at(address) == expected, hex(address)
        # The run of rows of the address's line holds it, also where rows of other lines
        # share its first row's address (at -O2, `main` begins with three).
        span = info.line_range_at(address)
        assert span is not None and span[0] <= address < span[1], hex(address)
