"""A function's arguments (which DIEs, as shown, whether each may have an entry value) are
found once for all its pcs: a stepi onto each new pc of it walked its DIEs again."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from aliceserver.debuggers.symbols.dwarf.framescope import FrameScope
from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
from aliceserver.debuggers.symbols.dwarf.variable import Variable
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.fuzz.symbols_worker import ZeroFrame
from tests.support.build import Builder


@pytest.mark.parametrize("flags", [("-g", "-O0"), ("-g", "-O2")])
def test_arguments_walked_once_per_function(
    builder: Builder, monkeypatch: pytest.MonkeyPatch, flags: tuple[str, ...]
) -> None:
    image = ElfImage.load(str(builder.build("src_basic", flags)))
    symbols = ModuleSymbols(image)
    function = image.find_symbol("factorial")
    assert function is not None
    first = symbols.frame_scope(ZeroFrame(function.address + 4))
    assert first is not None
    names = [var.name for var in first.shown_arguments()]
    candidates = first.entry_candidates(ZeroFrame(function.address + 4))
    walks: list[object] = []
    walk = FrameScope._vars_of

    def counted(self: FrameScope, die: object, params: bool) -> Iterator[Variable]:
        walks.append(die)
        return walk(self, die, params)  # type: ignore[arg-type]

    monkeypatch.setattr(FrameScope, "_vars_of", counted)
    later = [symbols.frame_scope(ZeroFrame(pc)) for pc in range(function.address + 5, function.address + 12)]
    assert all(scope is not None and scope is not first for scope in later)  # scopes of other pcs
    for scope in later:
        assert scope is not None
        assert [var.name for var in scope.shown_arguments()] == names == ["n"]
        assert scope.entry_candidates(ZeroFrame(scope.link_pc)) == candidates
    assert walks == []
    symbols.units.close()
