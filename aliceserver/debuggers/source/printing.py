"""The engine's side of the pretty printers (debuggers/printers): its images and, for a
frame, names, types and expressions over every module's DWARF."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from aliceserver.debuggers.printers.autoload import AutoLoad
from aliceserver.debuggers.printers.host import PrinterHost, Tell
from aliceserver.debuggers.source.variables import FrameView, ProcessEvalSymbols, evaluate
from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
from aliceserver.debuggers.symbols.dwarf.types import Type
from aliceserver.debuggers.symbols.dwarf.values import FrameContext, Value

if TYPE_CHECKING:
    from aliceserver.debuggers.printers.context import Target
    from aliceserver.debuggers.source.sourcesymbols import SourceSymbols
    from aliceserver.debuggers.symbols.dwarf.expr import FrameSymbols


class EngineImages:
    def __init__(self, source: Callable[[], SourceSymbols]) -> None:
        self._source = source
        self._c_only: dict[int, tuple[ModuleSymbols, bool]] = {}
        self.host: PrinterHost | None = None  # its xmethods serve gdb.parse_and_eval

    def paths(self) -> list[str]:
        modules = self._source().symbols.modules()
        return [m.path for m in sorted(modules, key=lambda m: not m.is_main)]

    def target(self, frame: FrameContext) -> Target:
        from aliceserver.debuggers.printers.context import Target

        source = self._source()

        def modules() -> list[tuple[int, ModuleSymbols]]:
            return [(module.base, symbols) for module, symbols in source.all_module_symbols()]

        def scoped_modules() -> list[tuple[int, ModuleSymbols]]:
            return [(bias, symbols) for bias, symbols in modules() if not self.c_only(symbols)]

        view = cast(FrameView, frame)
        symbols = ProcessEvalSymbols(None, modules, view)
        # C++ names (`std::vector<int>`, `ns::x`) are looked for in C++ and Rust modules
        # only: a miss in a C library's debug info would parse every unit of it.
        scoped = ProcessEvalSymbols(None, scoped_modules, view)

        def lookup_type(name: str) -> Type | None:
            return (scoped if "::" in name or "<" in name else symbols).lookup_type(name)

        def lookup(name: str) -> Value | None:
            return (scoped if "::" in name else symbols).lookup(name)

        def has_code(linkage_name: str) -> bool:
            return source.symbols.lookup_name(linkage_name) is not None

        def evaluate_here(text: str) -> Value:
            """gdb.parse_and_eval: in the frame, its locals first, as gdb's."""
            methods = self.host.methods(view) if self.host is not None else None
            return evaluate(text, ProcessEvalSymbols(_frame_symbols(source, view), modules, view, methods=methods))

        return Target(frame, lookup_type, lookup, evaluate_here, has_code)

    def c_only(self, symbols: ModuleSymbols) -> bool:
        """Whether the module has no C++ or Rust unit (a C library: no C++ names in it);
        its type-name index knows, cached on disk."""
        known = self._c_only.get(id(symbols))
        if known is None or known[0] is not symbols:
            scoped = symbols.has_dwarf and symbols.indexed_types().index.has_qualified_names
            known = self._c_only[id(symbols)] = (symbols, not scoped)
        return known[1]


def _frame_symbols(source: SourceSymbols, view: FrameView) -> FrameSymbols | None:
    from aliceserver.debuggers.symbols.dwarf.expr import FrameSymbols

    module = source.symbols.module_at(view.pc)
    symbols = source.module_symbols(module) if module is not None else None
    return FrameSymbols.at(symbols, view) if symbols is not None else None


def printer_host(source: Callable[[], SourceSymbols], previous: PrinterHost | None = None, *,
                 auto_load: AutoLoad | None = None, tell: Tell | None = None,
                 script_search: Callable[[], list[str]] | None = None) -> PrinterHost:
    """The printers of a program; `previous`: the last program's, whose user state (and
    auto-load settings) it keeps; else `auto_load`, `tell` and `script_search` (PrinterHost's)."""
    images = EngineImages(source)
    images.host = PrinterHost(images, auto_load, tell)
    if script_search is not None:
        images.host.script_search = script_search
    if previous is not None:
        images.host.carry_over(previous)
    return images.host
