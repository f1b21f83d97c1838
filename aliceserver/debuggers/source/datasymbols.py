"""Variables known only by their ELF symbol (a program built without -g): gdb's minimal
symbols of data, which the evaluator gives gdb's `<data variable, no debug info>` type
(expr/nodebug.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aliceserver.debuggers.source.sourcesymbols import SourceSymbols


def data_symbol(source: SourceSymbols, name: str, program_only: bool = False) -> int | None:
    """gdb's lookup_minimal_symbol for a variable: the runtime address of a global object
    symbol called `name` in load order, else of a file-local one; None for none.
    `program_only`: before `run` (gdb has read the program's symbols alone)."""
    found: dict[str, int] = {}
    for module in source.symbols.modules():
        if program_only and not module.is_main:
            continue
        image = source.symbols.image_of(module.path)
        symbol = image.find_symbol(name) if image is not None else None
        if symbol is not None and symbol.kind == "object":
            found.setdefault("local" if symbol.binding == "local" else "global", symbol.address + module.base)
    return found.get("global", found.get("local"))
