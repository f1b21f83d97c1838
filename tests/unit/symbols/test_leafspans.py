"""A pc's scope chain answered by the span of its innermost scope (leafspans.py): a step onto
a pc not seen before in a scope already walked costs no walk of its DIEs, and every byte of
every function gets the chain a walk at that very pc finds."""

from __future__ import annotations

import pytest
from elftools.dwarf.compileunit import CompileUnit
from elftools.dwarf.die import DIE

from aliceserver.debuggers.symbols.dwarf.dies import DwarfUnits
from aliceserver.debuggers.symbols.dwarf.leafspans import LeafSpans, leaf_span
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.support.build import Builder


def test_span_is_the_leaf_range_less_its_child_scopes() -> None:
    assert leaf_span(0x30, [(0x10, 0x20), (0x28, 0x80)], [[(0x20, 0x2C)], [(0x40, 0x50), (0x60, 0x70)]]) == (0x2C, 0x40)
    assert leaf_span(0x45, [(0x10, 0x80)], [[(0x40, 0x50)]]) is None  # a child holds it
    assert leaf_span(0x90, [(0x10, 0x80)], []) is None  # the leaf does not


def test_spans_answer_inside_and_not_past_their_ends() -> None:
    spans: LeafSpans[str] = LeafSpans()
    spans.remember(1, (0x10, 0x20), "f")
    spans.remember(1, (0x20, 0x28), "g")
    assert [spans.at(1, pc) for pc in (0x0F, 0x10, 0x1F, 0x20, 0x27, 0x28)] == [
        (False, None), (True, "f"), (True, "f"), (True, "g"), (True, "g"), (False, None)]
    assert spans.at(2, 0x10) == (False, None)  # another unit's


@pytest.mark.parametrize(("program", "flags"), [("src_inline", ("-g", "-O2")), ("src_basic", ("-g", "-O0"))])
def test_each_byte_gets_its_own_chain_with_few_walks(
    builder: Builder, monkeypatch: pytest.MonkeyPatch, program: str, flags: tuple[str, ...]
) -> None:
    path = builder.build(program, flags)
    image = ElfImage.load(str(path))
    addresses = [a for _name, low, size in image.function_symbols() for a in range(low, low + size)]
    expected = {}
    for address in addresses:  # each pc walked by a reader of its own: no span can answer
        fresh = DwarfUnits(image)
        cu = fresh.cu_for_address(address)
        found = fresh.function_die_at(cu, address) if cu is not None else None
        if found is not None:
            expected[address] = [d.offset for d in found.scopes]
        fresh.close()
    units = DwarfUnits(image)
    walks: list[int] = []
    walk = units._scopes_at

    def counted(cu: CompileUnit, address: int) -> list[DIE]:
        walks.append(address)
        return walk(cu, address)

    monkeypatch.setattr(units, "_scopes_at", counted)
    for address in addresses:
        cu = units.cu_for_address(address)
        found = units.function_die_at(cu, address) if cu is not None else None
        assert (None if found is None else [d.offset for d in found.scopes]) == expected.get(address), hex(address)
    units.close()
    assert len(expected) > 20
    assert len(walks) * 4 < len(expected)  # one walk per scope, not per pc
