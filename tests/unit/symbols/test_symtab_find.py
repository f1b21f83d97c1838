"""SymbolTable.find: its first lookups scan the table, later ones use the name index; both
give the same symbol for every name."""

from __future__ import annotations

import pytest

from aliceserver.debuggers.symbols import symtab
from aliceserver.debuggers.symbols.symtab import ElfSymbol, SymbolTable

SECTIONS = {1: (0x1000, 0x9000)}
ENTRIES = [
    (0x1000, 16, "memcpy@GLIBC_2.2.5", "func", "global", 1, True),
    (0x1100, 16, "memcpy@@GLIBC_2.14", "func", "global", 1, False),
    (0x1200, 8, "memcpy_chk", "func", "global", 1, False),
    (0x1300, 8, "foo", "object", "weak", 1, False),
    (0x1400, 8, "foo", "func", "local", 1, False),
    (0x1500, 0, "foo@VER_1", "func", "global", 1, False),
    (0x1600, 8, "bar@plt", "func", "global", 1, False),  # an entry, not a stub
    (0x1700, 8, "a@b@c", "func", "global", 1, False),
    (0x1800, 8, "fo", "func", "global", 1, False),
]
STUBS = [(0x2000, 16, "memcpy@plt", "func", "global", 1, False),
         (0x2010, 16, "bar@plt", "func", "global", 1, False)]  # fmt: skip
NAMES = ["memcpy", "memcpy@@GLIBC_2.14", "memcpy@GLIBC_2.2.5", "memcpy@GLIBC_9", "memcpy@plt",
         "memcpy_chk", "foo", "foo@VER_1", "foo@VER_2", "fo", "f", "bar", "bar@plt", "a",
         "a@b", "a@b@c", "missing", "missing@V", ""]  # fmt: skip


def _answers(table: SymbolTable) -> list[ElfSymbol | None]:
    return [table.find(name) for name in NAMES]


def test_scanned_lookups_find_what_the_index_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    scanned = SymbolTable(ENTRIES, SECTIONS, STUBS)
    monkeypatch.setattr(symtab, "_SCANS_BEFORE_INDEX", len(NAMES) * 2)
    by_scan = _answers(scanned)
    assert scanned._by_name is None  # every lookup above scanned
    monkeypatch.setattr(symtab, "_SCANS_BEFORE_INDEX", 0)
    indexed = SymbolTable(ENTRIES, SECTIONS, STUBS)
    assert _answers(indexed) == by_scan
    assert indexed._by_name is not None
    found = dict(zip(NAMES, by_scan, strict=True))
    memcpy = found["memcpy"]
    assert memcpy is not None and memcpy.address == 0x1100  # the default version
    foo = found["foo"]
    assert foo is not None and foo.address == 0x1500  # a global function first
    stub = found["memcpy@plt"]
    assert stub is not None and stub.address == 0x2000
    assert found["memcpy@GLIBC_9"] is not None  # an unknown version: the base name
    assert found["missing"] is None and found["f"] is None and found[""] is None


def test_the_index_is_built_after_a_few_lookups() -> None:
    table = SymbolTable(ENTRIES, SECTIONS, STUBS)
    for _ in range(symtab._SCANS_BEFORE_INDEX):
        table.find("foo")
    assert table._by_name is None
    table.find("foo")
    assert table._by_name is not None
