"""A symbol table read back from the index answers from its packed columns as the table it
was packed from does, making no list of every entry for lookups by address or by name."""

from __future__ import annotations

import pytest

from aliceserver.debuggers.symbols import symtab
from aliceserver.debuggers.symbols.symtab import SymbolTable
from tests.unit.symbols.test_symtab_find import NAMES, SECTIONS, STUBS

ENTRIES = [
    (0x1000, 16, "memcpy@GLIBC_2.2.5", "func", "global", 1, True),
    (0x1100, 16, "memcpy@@GLIBC_2.14", "func", "global", 1, False),
    (0x1100, 16, "__memcpy_impl", "func", "local", 1, False),  # an alias: folded
    (0x1200, 8, "memcpy_chk", "func", "global", 1, False),
    (0x1300, 8, "foo", "object", "weak", 1, False),
    (0x1400, 8, "foo", "func", "local", 1, False),
    (0x1500, 0, "foo@VER_1", "func", "global", 1, False),
    (0x1600, 8, "bar@plt", "func", "global", 1, False),
    (0x1700, 8, "a@b@c", "func", "global", 1, False),
    (0x1800, 8, "fo", "func", "global", 1, False),
    (0x9100, 8, "elsewhere", "object", "global", 2, False),
]
ADDRESSES = [0xFFF, 0x1000, 0x1008, 0x1010, 0x1104, 0x1250, 0x1304, 0x1500, 0x1540, 0x8000,
             0x1FFF, 0x2000, 0x2018, 0x9000, 0x9104]  # fmt: skip


def test_packed_columns_answer_as_the_table_they_came_from(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(symtab, "_SCANS_BEFORE_INDEX", len(NAMES) * 2)  # every find scans
    sections = {**SECTIONS, 2: (0x9000, 0x9200)}
    whole = SymbolTable(ENTRIES, sections, STUBS)
    packed = SymbolTable.from_packed(whole.packed())
    assert [packed.find(n) for n in NAMES] == [whole.find(n) for n in NAMES]
    assert [packed.at(a) for a in ADDRESSES] == [whole.at(a) for a in ADDRESSES]
    # with its address index's addresses kept beside it (the index payload's), the same
    addresses = symtab.packed_addresses(whole.packed())
    assert symtab.are_packed_addresses(addresses, whole.packed())
    assert not symtab.are_packed_addresses(addresses[:-8], whole.packed())
    kept = SymbolTable.from_packed(whole.packed(), addresses)
    assert [kept.at(a) for a in ADDRESSES] == [whole.at(a) for a in ADDRESSES]
    assert kept._index is not None and packed._index is not None
    assert kept._index[0] == packed._index[0]
    assert [packed.in_section(a) for a in ADDRESSES] == [whole.in_section(a) for a in ADDRESSES]
    assert [packed.shared_by_functions(a) for a in ADDRESSES] == [
        whole.shared_by_functions(a) for a in ADDRESSES
    ]
    assert packed.shared_by_functions(0x1100)
    assert len(packed) == len(whole)
    assert packed._real is None  # no entry list was made for any of those
    assert packed.packed() == whole.packed()
    assert packed.symbols() == whole.symbols()
    assert sorted(packed.functions()) == sorted(whole.functions())


def test_an_empty_table_packs_and_answers_nothing() -> None:
    packed = SymbolTable.from_packed(SymbolTable([], {}).packed())
    assert packed.find("main") is None
    assert packed.find("") is None
    assert packed.at(0x1000) is None
    assert len(packed) == 0


def test_the_packed_table_keeps_where_each_name_starts() -> None:
    """The names' starts are stored with the table (not found again by splitting the names
    at each start), and a table whose starts do not fit its names is not taken."""
    table = SymbolTable(ENTRIES, SECTIONS, STUBS).packed()
    text, starts = table[0], symtab._words32(table[6])
    assert [text[start:].split("\0", 1)[0] for start in starts] == text.split("\0")
    assert symtab.is_packed_table(table)
    assert not symtab.is_packed_table((*table[:6], table[6][:-4], table[7]))  # one name short
    assert not symtab.is_packed_table((*table[:6], b"\1\0\0\0" + table[6][4:], table[7]))  # not at 0
    past_the_end = table[6][:-4] + (len(text) + 1).to_bytes(4, "little")
    assert not symtab.is_packed_table((*table[:6], past_the_end, table[7]))
    assert not symtab.is_packed_table(table[:6])  # the format before: rebuilt


def test_the_packed_table_keeps_where_several_functions_start() -> None:
    """The addresses several function symbols share are stored with the table, not found
    again by sorting every function's address at the first question."""
    whole = SymbolTable(ENTRIES, SECTIONS, STUBS)
    table = whole.packed()
    assert symtab._words32(table[7]).tolist() == [0x1100, 0]  # 64-bit little-endian: 0x1100
    packed = SymbolTable.from_packed(table)
    assert packed._folded == frozenset({0x1100})
    assert [packed.shared_by_functions(a) for a in ADDRESSES] == [whole.shared_by_functions(a) for a in ADDRESSES]
    assert not symtab.is_packed_table((*table[:7], table[7][:-1]))  # not whole 64-bit words


def test_packed_columns_find_names_holding_a_text_as_the_table_does() -> None:
    """C++'s wild search (cxx_minimal.py): the function symbols whose names hold a text,
    PLT stubs too, and whether any name is a mangled C++ one."""
    entries = [*ENTRIES, (0x1900, 8, "_ZNSo5flushEv", "func", "weak", 1, False),
               (0x1A00, 8, "_ZSt5flushIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_", "func", "weak", 1, False),
               (0x1B00, 8, "_ZN2ns5flushE", "object", "global", 1, False)]  # fmt: skip
    stubs = [*STUBS, (0x1C00, 16, "_ZNSo5flushEv@plt", "func", "local", 1, False)]
    whole = SymbolTable(entries, SECTIONS, stubs)
    packed = SymbolTable.from_packed(whole.packed())
    for fragment in ("5flush", "memcpy", "foo", "fo", "@", "absent"):
        found = sorted(s.name for s in whole.functions_containing(fragment))
        assert sorted(s.name for s in packed.functions_containing(fragment)) == found
    assert sorted(s.name for s in packed.functions_containing("5flush")) == [
        "_ZNSo5flushEv", "_ZNSo5flushEv@plt", "_ZSt5flushIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_"]
    assert packed._real is None  # no entry list was made for the search
    assert whole.has_mangled_names() and packed.has_mangled_names()
    c_only = SymbolTable(ENTRIES, SECTIONS, STUBS)
    assert not c_only.has_mangled_names() and not SymbolTable.from_packed(c_only.packed()).has_mangled_names()
