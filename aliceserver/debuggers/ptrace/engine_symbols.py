"""The engine's symbol and line-table queries, kept out of engine.py: each handed to the
part that answers it (source/symbolinfo.py, symbolsearch.py, sourcefiles.py through the
lazily made parts; library_symbols.py for the libraries' symbols loaded or not)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aliceserver.debuggers.model import (
        CompileUnitInfo,
        LibrarySymbolsRead,
        LineRange,
        Module,
        ModuleSourceFiles,
        StaticProbe,
        SymbolSearchQuery,
        SymbolSearchResult,
    )
    from aliceserver.debuggers.ptrace.engine_lazy import LazyParts
    from aliceserver.debuggers.source.library_symbols import LibrarySymbolControl
    from aliceserver.debuggers.storage import SymbolStorage


class EngineSymbolQueries:
    _lazy: LazyParts
    _library_symbols: LibrarySymbolControl

    def has_debug_info(self, module_path: str) -> bool:
        return self._lazy.symbol_queries.has_debug_info(module_path)

    def static_probes(self) -> list[StaticProbe]:
        return self._lazy.symbol_queries.static_probes()

    def compile_unit(self, path: str) -> CompileUnitInfo | None:
        return self._lazy.symbol_queries.compile_unit(path)

    def line_range(self, address: int) -> LineRange | None:
        return self._lazy.symbol_queries.line_range(address)

    def line_start(self, file: str, line: int) -> LineRange | None:
        return self._lazy.symbol_queries.line_start(file, line)

    def line_table(self, file: str) -> list[tuple[int, int]]:
        return self._lazy.symbol_queries.line_table(file)

    def symbol_storage(self, name: str, thread_id: int | None = None, level: int = 0) -> SymbolStorage:
        return self._lazy.symbol_queries.symbol_storage(name, thread_id, level)

    def scope_storage(self, address: int) -> list[SymbolStorage]:
        return self._lazy.symbol_queries.scope_storage(address)

    def function_ranges(self, address: int) -> list[tuple[int, int]] | None:
        return self._lazy.symbol_queries.function_ranges(address)

    def search_symbols(self, query: SymbolSearchQuery) -> SymbolSearchResult:
        return self._lazy.symbol_search.search_symbols(query)

    def module_source_files(self, program_only: bool = False) -> list[ModuleSourceFiles]:
        return self._lazy.source_files.module_source_files(program_only)

    def symbols_loaded(self, module_path: str) -> bool:
        return self._library_symbols.symbols_loaded(module_path)

    def unload_library_symbols(self) -> list[Module]:
        return self._library_symbols.unload_library_symbols()

    def load_library_symbols(self, paths: list[str] | None = None) -> list[LibrarySymbolsRead]:
        return self._library_symbols.load_library_symbols(paths)
