"""gdb's symbol search (symtab.c, global_symbol_searcher), an object the engine composes: the functions, variables or types whose names a regex finds, with debug info
(per file, as `info functions` and `-symbol-info-functions` list them) and, on request,
the ELF symbols that have none.

A name regex reads only the units the names index (globalnames.py) says define a
matching name; no regex reads every unit, as gdb expands every symbol table then.
"""

from __future__ import annotations

import logging
import os
import re

from elftools.dwarf.compileunit import CompileUnit

from aliceserver.debuggers.model import (
    DebugSymbolEntry,
    Module,
    NondebugSymbolEntry,
    SymbolDomain,
    SymbolSearchQuery,
    SymbolSearchResult,
)
from aliceserver.debuggers.source.services import EngineServices
from aliceserver.debuggers.source.sourcesymbols import SourceSymbols
from aliceserver.debuggers.symbols.dwarf.dies import _CORRUPT, attr_value
from aliceserver.debuggers.symbols.dwarf.index import DebugInfo
from aliceserver.debuggers.symbols.dwarf.names import Demangler, natural_name
from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
from aliceserver.debuggers.symbols.dwarf.type_builder import is_cplus
from aliceserver.debuggers.symbols.dwarf.unitsymbols import UnitSymbol, unit_symbols
from aliceserver.debuggers.symbols.posix_regex import RegexError, compile_basic
from aliceserver.errors import ProtocolError

log = logging.getLogger(__name__)

# GCC names a function's static variable `completed.0`; gdb's minimal symbol drops `.0`
_LOCAL_SUFFIX = re.compile(r"\.\d+$")
def _compiled(pattern: str | None) -> re.Pattern[str] | None:
    if not pattern:
        return None
    try:
        return compile_basic(pattern)
    except RegexError as error:
        raise ProtocolError(f"Invalid regexp: {error}") from None


class SymbolSearch:
    def __init__(self, engine: EngineServices) -> None:
        self._engine = engine

    def search_symbols(self, query: SymbolSearchQuery) -> SymbolSearchResult:
        names, types = _compiled(query.name_regex), _compiled(query.type_regex)
        return self._engine.run_on_engine(lambda: _Search(self._engine.source_symbols, query, names, types).run())


class _Search:
    def __init__(
        self,
        source: SourceSymbols,
        query: SymbolSearchQuery,
        names: re.Pattern[str] | None,
        types: re.Pattern[str] | None,
    ) -> None:
        self.source, self.query, self.names, self.types = source, query, names, types
        self.limit = query.max_results
        self.found: dict[tuple[str, int, str], DebugSymbolEntry] = {}
        self.demangler = Demangler()

    def full(self) -> bool:
        return self.limit is not None and len(self.found) >= self.limit

    def run(self) -> SymbolSearchResult:
        if self.limit == 0:
            return SymbolSearchResult((), ())
        for module, symbols in self.source.all_module_symbols():
            info = self.source.debug_info(module)
            if info is None or self.full() or (self.query.program_only and not module.is_main):
                continue
            # gdb visits the symbol tables newest first, and expands them in unit order
            # while searching: with --max-results its first answers come from the last units
            for offset in reversed(self._units(module, symbols)):
                self._search_unit(info, symbols, offset)
                if self.full():
                    break
        ordered = [self.found[key] for key in sorted(self.found)]
        nondebug: list[NondebugSymbolEntry] = []
        if self.query.include_nondebug and self.types is None and not self.full():
            nondebug = self._nondebug()
        return SymbolSearchResult(tuple(ordered), tuple(nondebug))

    def _units(self, module: Module, symbols: ModuleSymbols) -> list[int]:
        """The units that may hold a match: those defining a name the regex finds (the
        index keeps a name's last component), and C++'s when it may match a qualifier."""
        offsets = symbols.units.cu_offsets()
        names = self.source.global_names(module)
        if self.names is None or names is None:
            return offsets
        wanted = {offset for name, units in names.items() if self.names.search(name) for offset in units}
        pattern = self.query.name_regex or ""
        if "::" in pattern.replace("\\", "") or any(c in pattern for c in "^$()<>,*& "):  # C++'s may match after
            # the last component: its qualifiers, parameters, template arguments
            wanted.update(o for o in offsets if is_cplus(symbols.units.cu_at_offset(o).get_top_DIE()))
        return [offset for offset in offsets if offset in wanted]

    def _search_unit(self, info: DebugInfo, symbols: ModuleSymbols, offset: int) -> None:
        cu = symbols.units.cu_at_offset(offset)
        top = cu.get_top_DIE()
        primary = _text(attr_value(top, "DW_AT_name"))
        comp_dir = _text(attr_value(top, "DW_AT_comp_dir"))
        names = _FileNames(symbols, cu, primary, comp_dir)
        entries = unit_symbols(symbols, cu, self.query.domain, self.demangler.demangle)
        for entry in [e for e in entries if e.is_global] + [e for e in entries if not e.is_global]:
            # gdb's search name: a C++ function's with its parameters (`ns::foo(int)`)
            if self.names is not None and not self.names.search(entry.sort_name or entry.name):
                continue
            if self.types is not None and not self.types.search(entry.type):
                continue
            # a dwz partial unit names no file: gdb's symtab of it is "<unknown>"
            shown = names.shown(entry.decl_file) if top.tag != "DW_TAG_partial_unit" else "<unknown>"
            self._add(shown, os.path.normpath(os.path.join(comp_dir, shown)), entry)
            if self.full():
                return

    def _add(self, shown: str, full: str, entry: UnitSymbol) -> None:
        key = (shown, 0 if entry.is_global else 1, entry.sort_name or entry.name)
        if key not in self.found:
            self.found[key] = DebugSymbolEntry(shown, full, entry.line, entry.name, entry.type, entry.description,
                                               entry.sort_name)  # fmt: skip

    def _nondebug(self) -> list[NondebugSymbolEntry]:
        """gdb's minimal symbols of the domain that no debug symbol stands for: functions
        outside every unit's code, data whose name the debug info does not define."""
        functions = self.query.domain is SymbolDomain.FUNCTIONS
        found: dict[tuple[int, str], NondebugSymbolEntry] = {}
        for module in self.source.symbols.modules():
            image = self.source.symbols.image_of(module.path)
            if image is None or (self.query.program_only and not module.is_main):
                continue
            info = self.source.debug_info(module)
            defined = self.source.global_names(module) if info is not None else None
            for symbol in image.symbols():
                is_code = symbol.kind == "func" or (symbol.kind == "other" and image.is_executable_address(symbol.address))
                if is_code != functions:
                    continue
                if symbol.name.endswith("@got.plt"):  # gdb's mst_slot_got_plt: listed as neither
                    continue
                name = natural_name(symbol.name, self.demangler)  # a PLT stub's `@plt` stays
                if symbol.binding == "local" and symbol.kind == "object":
                    name = _LOCAL_SUFFIX.sub("", name)
                if self.names is not None and not self.names.search(name):
                    continue
                if functions and info is not None and info.cu_offset_at(symbol.address) is not None:
                    continue
                # the index names a C++ class's static member or a namespace's variable by
                # its own name (DW_AT_name): `Counter::total` is defined as `total`
                if not functions and defined is not None and (name in defined or (
                        name != symbol.name and " " not in name and name.rpartition("::")[2] in defined)):
                    continue
                address = symbol.address + module.base
                found.setdefault((address, name), NondebugSymbolEntry(address, name))
        return [found[key] for key in sorted(found)]


class _FileNames:
    """The file names gdb gives a unit's symbol tables (buildsym.c start_subfile): a line
    table entry's directory joined to its name, unless that is the unit's own file (its
    DW_AT_name, also when the entry spells it absolute). Relative directories stay
    relative: glibc's `./stdlib/a64l.c`."""

    def __init__(self, symbols: ModuleSymbols, cu: CompileUnit, primary: str, comp_dir: str) -> None:
        self.primary, self.comp_dir = primary, comp_dir
        self.dirs: list[str] = []
        self.files: list[tuple[str, int]] = []
        self.version = 5
        dwarf = symbols.units.info
        try:
            program = dwarf.line_program_for_CU(cu) if dwarf is not None else None
        except _CORRUPT as error:
            log.debug("no line table header for unit %#x: %s", cu.cu_offset, error)
            program = None
        if program is not None:
            self.version = int(program.header["version"])
            self.dirs = [_text(d) for d in program.header["include_directory"]]
            self.files = [(_text(f.name), int(f.dir_index)) for f in program.header["file_entry"]]
        self._shown: dict[int, str] = {}

    def shown(self, number: int) -> str:
        found = self._shown.get(number)
        if found is None:
            found = self._shown[number] = self._name(number)
        return found

    def _name(self, number: int) -> str:
        index = number if self.version >= 5 else number - 1
        if not number and self.version < 5 or not 0 <= index < len(self.files):
            return self.primary
        name, dir_index = self.files[index]
        directory = self.dirs[dir_index] if self.version >= 5 else (self.dirs[dir_index - 1] if dir_index else None)
        if directory and not os.path.isabs(name):
            name = directory.rstrip("/") + "/" + name
        if name == self.primary:
            return self.primary
        if os.path.isabs(name) and not os.path.isabs(self.primary) and self.comp_dir.rstrip("/") + "/" + self.primary == name:
            return self.primary
        return name


def _text(value: object) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value or "")
