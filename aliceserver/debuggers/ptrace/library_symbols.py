"""gdb's `nosharedlibrary` and `sharedlibrary [REGEX]` for PtraceDebugger (a mixin of
engine.py): the symbols of shared libraries dropped and read again while the process
keeps them mapped. Only the symbolics change: without its symbols a library's code has no
function names, lines, variables or call frame information, and breakpoints placed in it
are pending again until its symbols come back (by `sharedlibrary`, or at the loader's next
change of its list, as gdb's auto-solib-add does)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, TypeVar

from aliceserver.debuggers.model import LibrarySymbolsRead, Module
from aliceserver.debuggers.source.sourcesymbols import SourceSymbols

if TYPE_CHECKING:
    from aliceserver.debuggers.ptrace.inferior import Inferior

T = TypeVar("T")


class LibrarySymbolControl:
    _source: SourceSymbols
    _inferior: Inferior | None

    if TYPE_CHECKING:  # provided by the class this is mixed into

        def _call(self, fn: Callable[[], T]) -> T:
            raise NotImplementedError

        def _unbind_module(self, module: Module, *, still_mapped: bool = False) -> None:
            raise NotImplementedError

        def _bind_location_breakpoints(self, new_image: bool = False) -> None:
            raise NotImplementedError

        def _forget_stop_state(self) -> None:
            raise NotImplementedError

    def unload_library_symbols(self) -> list[Module]:
        def go() -> list[Module]:
            if self._inferior is None:
                return []  # before run there are no libraries (gdb: a no-op)
            dropped = self._source.symbols.drop_library_symbols()
            for module in dropped:
                self._unbind_module(module, still_mapped=True)
            if dropped:
                self._forget_stop_state()  # frames named by the dropped symbols
            return dropped

        return self._call(go)

    def load_library_symbols(self, paths: list[str] | None = None) -> list[LibrarySymbolsRead]:
        return self._call(lambda: self._read_library_symbols(paths))

    def symbols_loaded(self, module_path: str) -> bool:
        return self._call(lambda: all(m.path != module_path for m in self._source.symbols.unread_libraries()))

    def _read_library_symbols(self, paths: list[str] | None) -> list[LibrarySymbolsRead]:
        """On the tracer thread: also at each change of the loader's list (auto-solib-add)."""
        restored = self._source.symbols.read_library_symbols(paths)
        if not restored:
            return []
        self._forget_stop_state()
        self._bind_location_breakpoints()
        found = []
        for module in restored:
            info = self._source.debug_info(module)
            debug_file = info.debug_file if info is not None else None
            separate = debug_file if debug_file is not None and debug_file != module.path else None
            found.append(LibrarySymbolsRead(module, separate, info is not None))
        return found
