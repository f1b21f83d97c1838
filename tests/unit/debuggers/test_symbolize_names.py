"""ProcessAccess.symbolize (ptrace/state.py): an address is named once while the modules
stay where they are, and named again once one is mapped, moved or dropped, or the program
is replaced."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import pytest

from aliceserver.debuggers.model import SymbolLocation
from aliceserver.debuggers.ptrace import state
from aliceserver.debuggers.ptrace.state import ProcessAccess
from aliceserver.debuggers.source.sourcesymbols import SourceSymbols


@dataclass
class Layout:
    generation: int = 0


@dataclass
class Source:
    symbols: Layout = field(default_factory=Layout)


def _unused(*_args: object) -> Any:
    raise AssertionError("not used by symbolize")


def _access(source: Source) -> ProcessAccess:
    unused = cast(Any, None)
    return ProcessAccess(
        unused, core=lambda: None, traps=unused, symbols=unused, source=cast(SourceSymbols, source),
        disassembler=unused, libc=unused, stop_cache=unused, forget_thread=_unused,
        forget_stop_state=_unused, process=lambda: None,
    )  # fmt: skip


@pytest.fixture
def named(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The addresses address_symbol was asked to name: `table+8` at 0x1008, none elsewhere."""
    asked: list[int] = []

    def address_symbol(
        source: object, address: int, demangle: Callable[[str], str] | None
    ) -> SymbolLocation:
        asked.append(address)
        if address == 0x1008:
            return SymbolLocation(address, "table", 8, "prog")
        return SymbolLocation(address, None, 0, None)

    monkeypatch.setattr(state, "address_symbol", address_symbol)
    return asked


def test_an_address_is_named_once_while_the_modules_stay(named: list[int]) -> None:
    source = Source()
    access = _access(source)
    assert access.symbolize(0x1008) == "table+8"
    assert access.symbolize(0x1008) == "table+8"
    assert access.symbolize(0x7FFC0000) is None
    assert access.symbolize(0x7FFC0000) is None
    assert named == [0x1008, 0x7FFC0000]
    # mangled names (x/a) are another answer
    assert access.symbolize(0x1008, demangle=False) == "table+8"
    assert named == [0x1008, 0x7FFC0000, 0x1008]


def test_a_module_mapped_or_a_new_program_names_it_again(named: list[int]) -> None:
    source = Source()
    access = _access(source)
    access.symbolize(0x1008)
    source.symbols.generation += 1  # a library mapped, moved or dropped
    access.symbolize(0x1008)
    access.source = cast(SourceSymbols, Source())  # a new image (exec, run of another file)
    access.symbolize(0x1008)
    assert named == [0x1008, 0x1008, 0x1008]
