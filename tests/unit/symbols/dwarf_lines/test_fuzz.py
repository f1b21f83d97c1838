"""Malformed line programs: TargetError or a result, never a hang or another exception."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aliceserver.debuggers.symbols.dwarf.lines import StringSections, decode_rows, parse_header
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
from aliceserver.debuggers.symbols.dwarf.units import read_aranges
from aliceserver.errors import TargetError
from tests.unit.symbols.dwarf_lines.support import C_SOURCES, Builder


@pytest.fixture(scope="module", params=["-gdwarf-4", "-gdwarf-5"])
def line_section(request: pytest.FixtureRequest, builder: Builder) -> tuple[bytes, StringSections]:
    program = builder.build(C_SOURCES, ("-g", request.param, "-O0"))
    sections = ElfSections(str(program))
    strings = StringSections(
        line_str=sections.get(".debug_line_str"), str=sections.get(".debug_str")
    )
    return sections.get(".debug_line"), strings


def _mutate(data: bytes, edits: list[tuple[int, int]], cut: int) -> bytes:
    buffer = bytearray(data)
    for position, value in edits:
        buffer[position % len(buffer)] = value
    return bytes(buffer[: max(1, len(buffer) - cut)])


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    edits=st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 255)), max_size=12),
    cut=st.integers(0, 64),
)
def test_mutated_line_programs(
    line_section: tuple[bytes, StringSections], edits: list[tuple[int, int]], cut: int
) -> None:
    data, strings = line_section
    mutated = _mutate(data, edits, cut)
    try:
        header = parse_header(mutated, 0, "/build", "a.c", strings)
    except TargetError:
        return
    try:
        rows = decode_rows(mutated, header)
    except TargetError:
        return
    for first, last, low, _high in rows.sequences:
        assert first <= last < len(rows) and low <= rows.address[first]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes(data: bytes) -> None:
    try:
        header = parse_header(data, 0, "", "", StringSections())
        decode_rows(data, header)
    except TargetError:
        pass
    read_aranges(data)
