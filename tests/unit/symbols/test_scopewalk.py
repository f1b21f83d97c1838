"""The nested scopes around an address found in the raw bytes (scopewalk.py) against
pyelftools' walk of the same DIEs (DwarfUnits._descend), at every byte of every function."""

from __future__ import annotations

from pathlib import Path

import pytest

from aliceserver.debuggers.symbols.dwarf import dies as dies_module
from aliceserver.debuggers.symbols.dwarf.dies import DwarfUnits
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder, find_clang


def _compare(path: Path, *, must_read_raw: bool) -> int:
    """How many addresses had nested scopes; asserts the chains are pyelftools' own."""
    image = ElfImage.load(str(path))
    units = DwarfUnits(image)
    nested = 0
    for _name, low, size in image.function_symbols():
        for address in range(low, low + size):
            cu = units.cu_for_address(address)
            found = units.function_die_at(cu, address) if cu is not None else None
            if cu is None or found is None:
                continue
            subprogram = found.subprogram
            links = units._raw_chain(cu, subprogram, address)
            assert links is not None or not must_read_raw, hex(address)
            expected = [d.offset for d in units._descend(subprogram, address)]
            assert [d.offset for d in found.scopes[1:]] == expected, hex(address)
            parents = [d.get_parent() for d in found.scopes[1:]]
            assert [p.offset if p is not None else None for p in parents] == [
                d.offset for d in found.scopes[:-1]
            ]
            nested += bool(expected)
    units.close()
    return nested


@pytest.mark.parametrize(("program", "flags"), [("src_inline", ("-g", "-O2")),
                                                 ("src_opt", ("-g", "-O2")),
                                                 ("src_opt", ("-gdwarf-4", "-O2")),
                                                 ("src_basic", ("-g", "-O0"))])  # fmt: skip
def test_gcc_chains_are_read_raw_and_match(builder: Builder, program: str,
                                           flags: tuple[str, ...]) -> None:  # fmt: skip
    nested = _compare(builder.build(program, flags), must_read_raw=True)
    if program != "src_basic":
        assert nested > 10  # inlined calls and blocks were found, not just subprograms


@pytest.mark.skipif(find_clang() is None, reason="clang not installed: it writes rnglistx forms")
def test_clang_chains_match(tmp_path_factory: pytest.TempPathFactory) -> None:
    """clang's indexed range lists are not read raw: those chains come from pyelftools."""
    path = MoreBuilder(tmp_path_factory.mktemp("clang")).build_clang("src_inline", ("-g", "-O2"), ".c")
    assert _compare(path, must_read_raw=False) > 0


def test_unreadable_chain_falls_back_to_pyelftools(
    builder: Builder, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = builder.build("src_inline", ("-g", "-O2"))
    expected = {}
    units = DwarfUnits(ElfImage.load(str(path)))
    image = ElfImage.load(str(path))
    for _name, low, size in image.function_symbols():
        for address in range(low, low + size, 3):
            cu = units.cu_for_address(address)
            found = units.function_die_at(cu, address) if cu is not None else None
            if found is not None:
                expected[address] = [d.offset for d in found.scopes]
    units.close()
    monkeypatch.setattr(dies_module, "scope_chain", lambda *args: None)
    units = DwarfUnits(ElfImage.load(str(path)))
    for address, offsets in expected.items():
        cu = units.cu_for_address(address)
        found = units.function_die_at(cu, address) if cu is not None else None
        assert found is not None and [d.offset for d in found.scopes] == offsets
    assert any(len(offsets) > 1 for offsets in expected.values())
    units.close()
