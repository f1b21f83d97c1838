"""The index's line part, kept pickled from the cache until a query needs lines; in a new
index, built by the first query for lines."""

from __future__ import annotations

import pickle
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.symbols.dwarf import index as index_module
from aliceserver.debuggers.symbols.dwarf import lineparts
from aliceserver.debuggers.symbols.dwarf import lines as lines_module
from aliceserver.debuggers.symbols.dwarf import units as units_module
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.index import DebugInfo
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.unit.symbols.dwarf_lines.support import C_SOURCES, Builder


def _load(path: Path, cache: IndexCache) -> DebugInfo:
    info = DebugInfo.load(ElfImage.load(str(path)), cache=cache)
    assert info is not None
    return info


def _count_decodes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    decoded: list[int] = []
    real = lineparts.LineParts._decode

    def counting(self: lineparts.LineParts) -> lineparts.Parts:
        decoded.append(1)
        return real(self)

    monkeypatch.setattr(lineparts.LineParts, "_decode", counting)
    return decoded


def test_a_name_not_there_is_answered_without_decoding_the_line_part(
    builder: Builder, cache: IndexCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = builder.build(C_SOURCES, ("-g", "-O0"))
    fresh = _load(program, cache)
    line, files = fresh.resolve_line("a.c", 8), fresh.source_files()  # (the line part stored)
    decoded = _count_decodes(monkeypatch)
    cached = _load(program, cache)
    assert cached.functions_named("PyList_Append") == []  # as in each library, at each load
    assert decoded == []
    assert cached.functions_named("compute") == fresh.functions_named("compute")
    assert cached.resolve_line("a.c", 8) == line
    assert cached.source_files() == files
    assert decoded == [1]


def test_a_line_part_that_does_not_decode_is_rebuilt(
    builder: Builder, cache: IndexCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = builder.build(C_SOURCES, ("-g", "-O0"))
    fresh = _load(program, cache)
    expected = fresh.resolve_line("a.c", 8)  # and the line part stored
    real_load = IndexCache.load

    def tampered(self: IndexCache, key: str, identity: Hashable) -> dict[str, Any] | None:
        payload = real_load(self, key, identity)
        if payload is not None and lineparts.PACKED in payload:  # well formed, wrong shape
            payload[lineparts.PACKED] = pickle.dumps(("units", [], {}, []))
        return payload

    monkeypatch.setattr(IndexCache, "load", tampered)
    built: list[int] = []
    real_build = units_module.build_line_part

    def counting_build(*args: Any) -> dict[str, Any]:
        built.append(1)
        return real_build(*args)

    monkeypatch.setattr(index_module, "build_line_part", counting_build)
    cached = _load(program, cache)
    assert built == []
    assert cached.resolve_line("a.c", 8) == expected
    assert built == [1]


def _count_headers(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    parsed: list[int] = []
    real = lines_module.parse_header  # as units.py imported it

    def counting(*args: Any) -> Any:
        parsed.append(1)
        return real(*args)

    monkeypatch.setattr(units_module, "parse_header", counting)
    return parsed


def test_a_new_index_reads_no_line_header_until_a_query_needs_lines(
    builder: Builder, cache: IndexCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first ever load of a library searched only for a name (libc at a first stop in
    CPython): its line headers were read, two thirds of its index's cost."""
    program = builder.build(C_SOURCES, ("-g", "-O0"))
    parsed = _count_headers(monkeypatch)
    fresh = _load(program, cache)
    assert fresh.functions_named("PyList_Append") == []
    assert parsed == []
    line = fresh.resolve_line("a.c", 8)
    assert line is not None and line.line == 8
    assert parsed  # built for that query, and stored with the index
    assert [f.name for f in fresh.functions_named("compute")] == ["compute"]
    parsed.clear()
    decoded = _count_decodes(monkeypatch)
    again = _load(program, cache)
    assert again.resolve_line("a.c", 8) == line
    assert parsed == [] and decoded == [1]


def test_a_line_part_built_on_first_use_reports_its_progress(builder: Builder, cache: IndexCache) -> None:
    """Building a large program's line part is most of its index's time: a front end showing
    the load's progress sees that build too, when the first query for lines makes it."""
    program = builder.build(C_SOURCES, ("-g", "-O0"))
    reported: list[tuple[str, float | None]] = []
    info = DebugInfo.load(ElfImage.load(str(program)), cache=cache,
                          progress=lambda message, fraction: reported.append((message, fraction)))  # fmt: skip
    assert info is not None and reported[-1][1] == 1.0
    loaded = len(reported)
    assert info.resolve_line("a.c", 8) is not None
    building = reported[loaded:]
    assert any("line tables" in message for message, _fraction in building)
    assert building[-1][1] == 1.0
