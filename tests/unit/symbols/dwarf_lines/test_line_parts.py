"""The index's line part, kept pickled from the cache until a query needs lines."""

from __future__ import annotations

import pickle
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.symbols.dwarf import index as index_module
from aliceserver.debuggers.symbols.dwarf import lineparts
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.index import DebugInfo
from aliceserver.debuggers.symbols.dwarf.units import build_payload
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
    decoded = _count_decodes(monkeypatch)
    cached = _load(program, cache)
    assert cached.functions_named("PyList_Append") == []  # as in each library, at each load
    assert decoded == []
    assert cached.functions_named("compute") == fresh.functions_named("compute")
    assert cached.resolve_line("a.c", 8) == fresh.resolve_line("a.c", 8)
    assert cached.source_files() == fresh.source_files()
    assert decoded == [1]


def test_a_line_part_that_does_not_decode_is_rebuilt(
    builder: Builder, cache: IndexCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = builder.build(C_SOURCES, ("-g", "-O0"))
    fresh = _load(program, cache)
    real_load = IndexCache.load

    def tampered(self: IndexCache, key: str, identity: Hashable) -> dict[str, Any] | None:
        payload = real_load(self, key, identity)
        if payload is not None and lineparts.PACKED in payload:  # well formed, wrong shape
            payload[lineparts.PACKED] = pickle.dumps(("units", [], {}, []))
        return payload

    monkeypatch.setattr(IndexCache, "load", tampered)
    built: list[int] = []
    real_build = build_payload

    def counting_build(*args: Any) -> dict[str, Any]:
        built.append(1)
        return real_build(*args)

    monkeypatch.setattr(index_module, "build_payload", counting_build)
    cached = _load(program, cache)
    assert built == []
    assert cached.resolve_line("a.c", 8) == fresh.resolve_line("a.c", 8)
    assert built == [1]
