"""The functions trace patterns choose from, per loaded module (calltrace.py's listing).

A function's record (its source position through the prologue rules and the line table)
costs about 0.15 ms: libc's 2,666 took 0.4-0.6 s of the engine thread at each traced run,
with the program waiting at its load. Names are cheap (the symbol table, demangled), so a
listing for a name filter builds records only for the names it accepts; records are kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aliceserver.debuggers.model import FunctionSymbol, SourcePosition
from aliceserver.debuggers.symbols.dwarf.funcnames import without_parameters
from aliceserver.debuggers.symbols.dwarf.names import Demangler, display_name

NameFilter = Callable[[str], bool]


@dataclass(slots=True)
class ModuleFunctions:
    """One module's function symbols by name, their records made on demand."""

    info: Any  # the module's debug info (source.services' DebugInfo)
    base: int
    path: str
    names: list[tuple[str, int, int]]  # (name as listed, link address, size)
    records: dict[int, FunctionSymbol | None] = field(default_factory=dict)  # by link address

    @classmethod
    def of(cls, info: Any, base: int, path: str, demangler: Demangler) -> ModuleFunctions:
        named = []
        for _name, link, size in info.image.function_symbols():
            hit = info.image.symbol_at(link) if size else None
            if hit is not None and hit[1] == 0:  # the symbol function_at names it by
                named.append((without_parameters(display_name(demangler.demangle(hit[0].name))), link, size))
        return cls(info, base, path, named)

    def listed(self, accept: NameFilter | None) -> list[FunctionSymbol]:
        found = []
        for name, link, size in self.names:
            if accept is not None and not accept(name):
                continue
            if link not in self.records:
                self.records[link] = self._record(link, size)
            record = self.records[link]
            if record is not None:
                found.append(record)
        return found

    def _record(self, link: int, size: int) -> FunctionSymbol | None:
        match = self.info.function_at(link)
        if match is None or match.file is None or match.low != link:
            return None  # no line info: startup code, PLT stubs, .cold parts
        source = SourcePosition(match.file, match.line or 0)
        return FunctionSymbol(without_parameters(match.name), link + self.base, size, source, self.path)
