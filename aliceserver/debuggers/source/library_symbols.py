"""gdb's `nosharedlibrary` and `sharedlibrary [REGEX]` (an object the engine composes): the
symbols of shared libraries dropped and read again while the process keeps them mapped.
Only the symbolics change: without its symbols a library's code has no function names,
lines, variables or call frame information, and breakpoints placed in it are pending again
until its symbols come back (by `sharedlibrary`, or at the loader's next change of its
list, as gdb's auto-solib-add does)."""

from __future__ import annotations

from typing import Callable

from aliceserver.debuggers.model import LibrarySymbolsRead, Module
from aliceserver.debuggers.source.services import EngineServices
from aliceserver.errors import TargetError


class LibrarySymbolControl:
    def __init__(
        self,
        engine: EngineServices,
        *,
        process_live: Callable[[], bool],
        unbind_module: Callable[[Module], None],
        rebind_breakpoints: Callable[[], None],
        forget_stop_state: Callable[[], None],
    ) -> None:
        self._engine = engine
        self._process_live = process_live
        self._unbind_module = unbind_module  # its breakpoints pending again, the library still mapped
        self._rebind_breakpoints = rebind_breakpoints
        self._forget_stop_state = forget_stop_state

    def unload_library_symbols(self) -> list[Module]:
        def go() -> list[Module]:
            if not self._has_libraries():
                return []  # before run there are no libraries (gdb: a no-op)
            dropped = self._engine.source_symbols.symbols.drop_library_symbols()
            for module in dropped:
                self._unbind_module(module)
            if dropped:
                self._forget_stop_state()  # frames named by the dropped symbols
            return dropped

        return self._engine.run_on_engine(go)

    def _has_libraries(self) -> bool:
        """A live process, or an open core: gdb drops a core's library symbols too."""
        if self._process_live():
            return True
        try:
            return not self._engine.target().live  # no live process: a core, if any
        except TargetError:
            return False  # neither

    def load_library_symbols(self, paths: list[str] | None = None) -> list[LibrarySymbolsRead]:
        return self._engine.run_on_engine(lambda: self.read_library_symbols(paths))

    def symbols_loaded(self, module_path: str) -> bool:
        def go() -> bool:
            return all(m.path != module_path for m in self._engine.source_symbols.symbols.unread_libraries())

        return self._engine.run_on_engine(go)

    def read_library_symbols(self, paths: list[str] | None) -> list[LibrarySymbolsRead]:
        """On the engine's thread: also at each change of the loader's list (auto-solib-add)."""
        source = self._engine.source_symbols
        restored = source.symbols.read_library_symbols(paths)
        if not restored:
            return []
        self._forget_stop_state()
        self._rebind_breakpoints()
        found = []
        for module in restored:
            info = source.debug_info(module)
            debug_file = info.debug_file if info is not None else None
            separate = debug_file if debug_file is not None and debug_file != module.path else None
            found.append(LibrarySymbolsRead(module, separate, info is not None))
        return found
