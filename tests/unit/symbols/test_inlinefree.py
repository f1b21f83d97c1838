"""A function's scope tree kept by its ranges (inlinefree.py): at every byte of every
function it gives the inlined calls a walk of the unit's DIEs at that very pc finds, once
the function was learned at one pc of it."""

from __future__ import annotations

import pytest

from aliceserver.debuggers.source.inlinefree import FunctionScopes
from aliceserver.debuggers.symbols.dwarf.dies import DwarfUnits
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.support.build import Builder

MODULE = ("program", 0)


@pytest.mark.parametrize(("program", "flags"), [("src_inline", ("-g", "-O2")), ("src_basic", ("-g", "-O0"))])
def test_each_byte_gets_the_chain_a_walk_finds(builder: Builder, program: str, flags: tuple[str, ...]) -> None:
    image = ElfImage.load(str(builder.build(program, flags)))
    addresses = [a for _name, low, size in image.function_symbols() for a in range(low, low + size)]
    expected = {}
    for address in addresses:  # each pc walked by a reader of its own
        fresh = DwarfUnits(image)
        cu = fresh.cu_for_address(address)
        found = fresh.function_die_at(cu, address) if cu is not None else None
        if found is not None:
            expected[address] = [d.offset for d in found.inlined]
        fresh.close()
    units, scopes = DwarfUnits(image), FunctionScopes()
    answered = 0
    for address in addresses:
        known = scopes.inline_chain(MODULE, address)
        if known is None:
            cu = units.cu_for_address(address)
            found = units.function_die_at(cu, address) if cu is not None else None
            if found is not None:
                scopes.learn(MODULE, found.subprogram, units.die_ranges)
            continue
        answered += 1
        assert [d.offset for d in known] == expected.get(address), hex(address)
    units.close()
    assert answered * 2 > len(expected) > 20
    if program == "src_inline":
        assert any(expected.values())  # inlined calls there to find
