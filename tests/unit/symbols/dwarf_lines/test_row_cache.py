"""Decoded line rows kept on disk (rowcache.py): read back as decoded, and never trusted
when damaged, of another build or of another format; the directory stays under its bound."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aliceserver.debuggers.symbols.dwarf import linerows
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.index import DebugInfo
from aliceserver.debuggers.symbols.dwarf.lines import LineHeader, LineRows, decode_rows
from aliceserver.debuggers.symbols.dwarf.model import SourceLine
from aliceserver.debuggers.symbols.dwarf.rowcache import MIN_PROGRAM, RowCache
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.unit.symbols.dwarf_lines.support import DAMAGES, Builder, damage_file, own_copy

# Enough functions that each unit's line program is worth keeping (over MIN_PROGRAM).
_BODY = "int {name}(int x) {{\n    int y = x * {i};\n    y += {i};\n    return y - 1;\n}}\n"
SOURCES = {
    "big.c": "".join(_BODY.format(name=f"f{i}", i=i) for i in range(300))
    + "int g(int);\nint main(void) { return f1(2) + g(3); }\n",
    "other.c": "".join(_BODY.format(name=f"g{i}", i=i) for i in range(300))
    + "int g(int v) { return g7(v); }\n",
}


def _load(path: Path, cache: IndexCache) -> DebugInfo:
    info = DebugInfo.load(ElfImage.load(str(path)), cache=cache)
    assert info is not None
    return info


Answer = tuple[SourceLine | None, tuple[int, int] | None, tuple[int, int] | None, bool]


def _answers(info: DebugInfo, image: ElfImage) -> list[Answer]:
    """What the rows answer at every byte of every function."""
    found: list[Answer] = []
    for symbol in image.symbols():
        if symbol.kind != "func" or not symbol.size:
            continue
        for address in range(symbol.address, symbol.address + symbol.size):
            found.append((info.location_at(address), info.line_range_at(address),
                          info.row_range_at(address), info.is_statement_start(address)))  # fmt: skip
    return found


@pytest.fixture
def program(builder: Builder, tmp_path: Path) -> Path:
    return own_copy(builder.build(SOURCES, ("-g", "-O2")), tmp_path)


@pytest.fixture
def decodes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The line programs decoded (not read from the cache), by offset."""
    seen: list[int] = []

    def counting(data: bytes, header: LineHeader, base: int = 0, **options: bool) -> LineRows:
        seen.append(header.offset)
        return decode_rows(data, header, base, **options)

    monkeypatch.setattr(linerows, "decode_rows", counting)
    return seen


def _rows_files(cache: IndexCache) -> list[str]:
    return sorted(os.listdir(cache.rows_directory))


def test_rows_read_back_answer_as_decoded(program: Path, cache: IndexCache,
                                          decodes: list[int]) -> None:  # fmt: skip
    image = ElfImage.load(str(program))
    first = _answers(_load(program, cache), image)
    assert len(set(decodes)) == 2 and len(_rows_files(cache)) == 2
    decodes.clear()
    second = _answers(_load(program, cache), image)
    assert decodes == []  # every unit's rows came from disk
    assert second == first
    assert sum(1 for a in first if a[0] is not None) > 1000


@pytest.mark.parametrize("damage", DAMAGES)
def test_damaged_rows_file_is_decoded_again_and_rewritten(
    program: Path, cache: IndexCache, decodes: list[int], damage: str
) -> None:
    image = ElfImage.load(str(program))
    expected = _answers(_load(program, cache), image)
    path = os.path.join(cache.rows_directory, _rows_files(cache)[0])
    damage_file(Path(path), damage, b"ALICEROW")
    decodes.clear()
    assert _answers(_load(program, cache), image) == expected
    assert len(decodes) == 1  # the damaged unit, decoded again
    decodes.clear()
    assert _answers(_load(program, cache), image) == expected
    assert decodes == []  # and written back sound


def test_rows_of_another_build_are_not_used(program: Path, cache: IndexCache,
                                            decodes: list[int]) -> None:  # fmt: skip
    image = ElfImage.load(str(program))
    expected = _answers(_load(program, cache), image)
    os.utime(program, ns=(1, 1))  # the same build id, but not the same file any more
    decodes.clear()
    assert _answers(_load(program, cache), image) == expected
    assert len(set(decodes)) == 2


def test_small_line_programs_are_not_stored(builder: Builder, cache: IndexCache) -> None:
    tiny = builder.build({"t.c": "int main(void) {\n    return 0;\n}\n"}, ("-g",))
    info = _load(tiny, cache)
    main = ElfImage.load(str(tiny)).find_symbol("main")
    assert main is not None and info.location_at(main.address) is not None
    assert not os.path.isdir(cache.rows_directory) or _rows_files(cache) == []
    assert MIN_PROGRAM > 100


def test_directory_is_kept_under_its_bound(tmp_path: Path) -> None:
    rows = LineRows()
    for address in range(0x1000, 0x1000 + 4000, 4):
        rows.address.append(address)
        rows.file.append(1)
        rows.line.append(address)
        rows.column.append(0)
        rows.flags.append(1)
    rows.sequences.append((0, len(rows) - 1, 0x1000, 0x1000 + 4000))
    store = RowCache(IndexCache(str(tmp_path), limit=100_000), "b-key", ("identity",))
    for stmt in range(10):  # about 33 kB each
        store.store(stmt, rows)
        os.utime(store.path_for(stmt), ns=(stmt + 1, stmt + 1))  # written in this order
    left = sorted(os.listdir(tmp_path / "rows"))
    assert sum(os.path.getsize(tmp_path / "rows" / name) for name in left) <= 100_000
    assert left and store.load(9) is not None and store.load(0) is None  # oldest went first
    loaded = store.load(9)
    assert loaded is not None and loaded.address == rows.address and loaded.sequences == rows.sequences


def test_unwritable_rows_directory_does_not_fail(program: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    cache = IndexCache(str(blocker / "sub"))
    image = ElfImage.load(str(program))
    main = image.find_symbol("main")
    assert main is not None and _load(program, cache).location_at(main.address) is not None
