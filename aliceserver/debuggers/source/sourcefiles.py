"""gdb's `info sources` and -file-list-exec-source-files (an object the engine
composes): each module's source files, from its line tables, and whether the debug info
of each file's unit has been read in full yet."""

from __future__ import annotations

from aliceserver.debuggers.model import ModuleSourceFiles, SourceFileEntry
from aliceserver.debuggers.source.services import EngineServices


class SourceFileListing:
    def __init__(self, engine: EngineServices) -> None:
        self._engine = engine

    def module_source_files(self, program_only: bool = False) -> list[ModuleSourceFiles]:
        return self._engine.run_on_engine(lambda: self._module_source_files(program_only))

    def _module_source_files(self, program_only: bool) -> list[ModuleSourceFiles]:
        found = []
        source = self._engine.source_symbols
        for module in source.symbols.modules():
            if program_only and not module.is_main:
                continue
            info = source.debug_info(module)
            symbols = source.module_symbols(module) if info is not None else None
            if info is None or symbols is None:
                found.append(ModuleSourceFiles(module.path, False, True, ()))
                continue
            files: dict[tuple[str, str], SourceFileEntry] = {}
            units = [(symbols.units.unit_read(unit[0]), unit) for unit in info.unit_files()]
            every_unit_read = all(read for read, _unit in units)
            # as gdb: the files of the units read in full first, then the others'
            for read, (_offset, name, primary, paths) in sorted(units, key=lambda u: not u[0]):
                for path in dict.fromkeys([primary, *paths]):
                    shown = name if path == primary else path
                    if path and (shown, path) not in files:
                        files[(shown, path)] = SourceFileEntry(shown, path, read)
            found.append(ModuleSourceFiles(module.path, True, every_unit_read, tuple(files.values())))
        return found
