"""A unit's top-level code scopes kept on disk (rowcache.py, read by dies.py): a later
session finds the same functions around every pc without walking the unit, and a file
that is damaged, of another build or of another format is walked again and rewritten."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aliceserver.debuggers.symbols.dwarf import coderanges, dies
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.cachedir import CacheDirectory
from aliceserver.debuggers.symbols.dwarf.coderanges import Scope
from aliceserver.debuggers.symbols.dwarf.dies import DwarfUnits
from aliceserver.debuggers.symbols.dwarf.index import DebugInfo
from aliceserver.debuggers.symbols.dwarf.rowcache import MIN_UNIT
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.unit.symbols.dwarf_lines.support import DAMAGES, Builder, damage_file, own_copy

# One unit well over MIN_UNIT of .debug_info: functions with locals, blocks and inlined calls.
_BODY = """\
struct s{i} {{ int a{i}; long b{i}; const char *c{i}; }};
static inline int twice{i}(int v) {{ return v * 2 + {i}; }}
int f{i}(int x) {{
    struct s{i} k = {{x, x * {i}L, "s"}};
    int y = twice{i}(x);
    {{
        int z = y + k.a{i};
        y += z * {i};
    }}
    return y - (int)k.b{i};
}}
"""
SOURCES = {"big.c": "".join(_BODY.format(i=i) for i in range(400)) + "int main(void) { return f1(2); }\n"}

Answer = tuple[str, tuple[str, ...]] | None  # the function's name, its scopes' tags


@pytest.fixture
def program(builder: Builder, tmp_path: Path) -> Path:
    return own_copy(builder.build(SOURCES, ("-g", "-O2")), tmp_path)


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The units walked (not read from the cache), by offset."""
    seen: list[int] = []
    walk = coderanges.unit_scopes

    def counting(unit: bytes, cu_offset: int, *args: object) -> list[Scope]:
        seen.append(cu_offset)
        return walk(unit, cu_offset, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(dies, "unit_scopes", counting)
    return seen


def _answers(program: Path, cache: IndexCache) -> list[Answer]:
    """The function and scopes around every 3rd byte of every function, as a new session
    (its own DwarfUnits, given the index's store) finds them."""
    image = ElfImage.load(str(program))
    info = DebugInfo.load(image, cache=cache)
    assert info is not None and info.stored_rows is not None
    units = DwarfUnits(image)
    units.stored = info.stored_rows
    found: list[Answer] = []
    for symbol in image.symbols():
        if symbol.kind != "func" or not symbol.size:
            continue
        for address in range(symbol.address, symbol.address + symbol.size, 3):
            cu = units.cu_for_address(address)
            at = units.function_die_at(cu, address) if cu is not None else None
            found.append(None if at is None else
                         (str(dies.die_name(at.subprogram)), tuple(str(d.tag) for d in at.scopes)))  # fmt: skip
    return found


def _scope_files(cache: IndexCache) -> list[str]:
    rows = cache.rows_directory
    return sorted(n for n in os.listdir(rows) if n.endswith(".scopes")) if os.path.isdir(rows) else []


def test_scopes_read_back_answer_as_walked(program: Path, cache: IndexCache, walks: list[int]) -> None:
    first = _answers(program, cache)
    assert len(set(walks)) == 1 and len(_scope_files(cache)) == 1
    walks.clear()
    assert _answers(program, cache) == first
    assert walks == []  # the unit's scopes came from disk
    inlined = [a for a in first if a is not None and "DW_TAG_inlined_subroutine" in a[1]]
    assert len({a[0] for a in first if a is not None}) > 400 and inlined
    # and what was kept is what the walk found, spans and all (a span lost would still
    # answer, by checking every scope: only slower)
    image = ElfImage.load(str(program))
    info = DebugInfo.load(image, cache=cache)
    units = DwarfUnits(image)
    assert info is not None and info.stored_rows is not None and units.info is not None
    offset = units.cu_offsets()[0]
    cu = units.cu_at_offset(offset)
    raw = units.section(".debug_info")
    abbrev = units.section(".debug_abbrev")
    assert raw is not None and abbrev is not None
    walked = coderanges.unit_scopes(raw[offset : offset + cu.size], offset, abbrev)
    assert info.stored_rows.load_scopes(offset) == walked
    assert sum(span is not None for _path, span in walked) > 400
    units.close()


@pytest.mark.parametrize("damage", DAMAGES)
def test_damaged_scopes_file_is_walked_again_and_rewritten(
    program: Path, cache: IndexCache, walks: list[int], damage: str
) -> None:
    expected = _answers(program, cache)
    path = Path(cache.rows_directory, _scope_files(cache)[0])
    damage_file(path, damage, b"ALICESCO")
    walks.clear()
    assert _answers(program, cache) == expected
    assert len(walks) == 1  # the damaged unit, walked again
    walks.clear()
    assert _answers(program, cache) == expected
    assert walks == []  # and written back sound


def test_scopes_of_another_build_are_not_used(program: Path, cache: IndexCache, walks: list[int]) -> None:
    expected = _answers(program, cache)
    os.utime(program, ns=(1, 1))  # the same build id, but not the same file any more
    walks.clear()
    assert _answers(program, cache) == expected
    assert len(walks) == 1


def test_small_units_are_walked_not_stored(builder: Builder, cache: IndexCache, walks: list[int]) -> None:
    tiny = builder.build({"t.c": "int main(void) {\n    int x = 3;\n    return x;\n}\n"}, ("-g",))
    assert ("main", ("DW_TAG_subprogram",)) in _answers(tiny, cache)
    assert walks and _scope_files(cache) == []
    assert MIN_UNIT > 1000


def test_scope_files_count_in_the_cache_and_go_with_it(program: Path, cache: IndexCache) -> None:
    """The directory's bound, `cache clear` and an entry's removal see the scope files."""
    _answers(program, cache)
    path = os.path.join(cache.rows_directory, _scope_files(cache)[0])
    space = CacheDirectory(cache.directory)
    entry = next(e for e in space.usage().entries if path in e.paths)
    assert entry.size >= os.path.getsize(path)
    Path(f"{path}.123.abc.tmp").write_bytes(b"partial")  # a dead writer's
    os.utime(f"{path}.123.abc.tmp", (1, 1))
    space.evict()
    assert not os.path.exists(f"{path}.123.abc.tmp")
    space.remove(entry.key)
    assert _scope_files(cache) == []
    _answers(program, cache)
    assert _scope_files(cache)
    space.clear()
    assert not os.path.exists(cache.rows_directory)
