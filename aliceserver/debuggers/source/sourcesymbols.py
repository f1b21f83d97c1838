"""Source-level symbols of one process: per-module DWARF, location specs (resolver.py),
stack frames.

Debug info is loaded per module on first need (the index is cached on disk), so starting a
session costs nothing until a file:line or a frame is asked for. Addresses in DebugInfo are
link-time; a module's `base` (load bias) turns them into runtime ones.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import replace
from typing import Callable, Mapping

from elftools.dwarf.die import DIE

from aliceserver.debuggers.arch.base import Architecture
from aliceserver.debuggers.arch.registry import X86_64_ARCH, by_e_machine
from aliceserver.debuggers.events import Output, Progress
from aliceserver.debuggers.model import (
    CodeLocation,
    Module,
    SourcePosition,
    StackFrame,
    SymbolLocation,
)
from aliceserver.debuggers.source.bypc import by_pc
from aliceserver.debuggers.source.resolver import LocationResolver, call_site_position
from aliceserver.debuggers.sourcepaths import SourcePaths
from aliceserver.debuggers.symbols.dwarf import funcnames, indexahead
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.cfi import CfiTables
from aliceserver.debuggers.symbols.dwarf.dies import attr_value, die_name
from aliceserver.debuggers.symbols.dwarf.dietree import children
from aliceserver.debuggers.symbols.dwarf.globalnames import GlobalNameIndex
from aliceserver.debuggers.symbols.dwarf.index import DebugInfo, MissingAltFile
from aliceserver.debuggers.symbols.dwarf.model import FunctionMatch
from aliceserver.debuggers.symbols.dwarf.names import Demangler, natural_name
from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
from aliceserver.debuggers.symbols.dwarf.sectionprefetch import SectionPrefetch
from aliceserver.debuggers.symbols.dwarf.typenames import TypeNameIndex
from aliceserver.debuggers.symbols.dwarf.unwind import UnwoundFrame, unwind_stack
from aliceserver.debuggers.symbols.dwarf.values import FrameContext
from aliceserver.debuggers.symbols.elf import ElfImage, ElfSymbol
from aliceserver.debuggers.symbols.linkmap import ReadMemory
from aliceserver.debuggers.symbols.process import ProcessSymbols
from aliceserver.errors import AliceError

log = logging.getLogger(__name__)
# What a lexical block declares that makes gdb a block of it (dwarf2/read.c
# read_lexical_block_scope: local symbols or using directives).
_BLOCK_SYMBOL_TAGS = frozenset(("DW_TAG_variable", "DW_TAG_label", "DW_TAG_typedef", "DW_TAG_structure_type",
                                "DW_TAG_class_type", "DW_TAG_union_type", "DW_TAG_enumeration_type",
                                "DW_TAG_subprogram", "DW_TAG_imported_module", "DW_TAG_imported_declaration"))

_FRAME_NAMES = 65536  # frame names (and function ranges) remembered by pc
# The suffixes gcc gives the copies it makes of a function (constant propagation, IPA-SRA,
# partial inlining, hot/cold splitting); the DWARF subprogram keeps the source name.
_CLONE_SUFFIX = re.compile(r"\.(constprop|isra|part|cold|clone)(\.\d+)*$|\.(constprop|isra|part)\.\d+\.")

# Debug info by module path, with the image it was read from. Its index and decoded line
# tables are in link-time addresses, so what was read for `break` before `run` serves the
# process, and a second run, as long as the file is the same (the same ElfImage).
DebugInfos = dict[str, tuple[ElfImage, DebugInfo | None]]

class SourceSymbols:
    def __init__(
        self,
        symbols: ProcessSymbols,
        cache: IndexCache | None = None, report: Callable[[Progress | Output], None] | None = None,
        debug_infos: DebugInfos | None = None,
        source_paths: SourcePaths | None = None,
    ) -> None:
        """`debug_infos`: kept by the caller from one image to the next (see DebugInfos);
        `source_paths`: the session's, where `break FILE:LINE` also finds mapped files."""
        self.symbols = symbols
        self.source_paths = source_paths if source_paths is not None else SourcePaths()
        self._report = report
        self._cache = cache if cache is not None else IndexCache()
        self._debug = debug_infos if debug_infos is not None else {}
        self._values: dict[tuple[str, int], ModuleSymbols | None] = {}
        self._all: list[tuple[Module, ModuleSymbols]] = []
        self._debug_images: dict[str, ElfImage | None] = {}
        self._name_indexes: dict[str, GlobalNameIndex] = {}  # by debug file path
        self._type_indexes: dict[str, TypeNameIndex] = {}  # by debug file path
        self._all_key: tuple[tuple[str, int], ...] = ()
        self.cfi = CfiTables(symbols)
        self._resolver = LocationResolver(self)
        # (module path, load bias, lookup pc) -> the name frames show there (asked at every stop)
        self._frame_names: dict[tuple[str, int, int], str | None] = {}
        self._shadowed_mains: dict[tuple[str, int], bool] = {}  # (module, main's DIE): _shadowed_by_namespace
        self._function_ranges: dict[tuple[str, int, int], tuple[int, int, int] | None] = {}
        self._inline_chains: dict[tuple[str, int, int], tuple[DIE, ...]] = {}
        # (module path, load bias, pc, pc exact, signal trampoline, symbol) -> the frames shown there
        self._places: dict[tuple[str, int, int, bool, bool, SymbolLocation], list[StackFrame]] = {}
        # (debug file, module path) -> whether they are one file (the module has its own DWARF)
        self._own_debug_files: dict[tuple[str, str], bool] = {}
        self.demangler = Demangler()  # (libstdc++'s __cxa_demangle, loaded at its first name)
        self.prefetch = SectionPrefetch(self._cache)  # libraries' DWARF inflated ahead

    def close(self) -> None:
        """Close the files the DWARF readers keep open (a new image, or the session ended);
        without this they stay open until the garbage collector finds them."""
        for values in self._values.values():
            if values is not None:
                values.units.close()
        self._values.clear()
        self._shadowed_mains.clear()
        self._all, self._all_key = [], ()
        self.prefetch.close()
        indexahead.close(self._cache)  # (a child indexing the libraries of this image)

    # --- per module -------------------------------------------------------------------
    def debug_info(self, module: Module) -> DebugInfo | None:
        image = self.symbols.image_of(module.path)
        if image is None:
            return None
        known = self._debug.get(module.path)
        if known is not None and known[0] is image:
            return known[1]
        try:
            info = DebugInfo.load(image, cache=self._cache, progress=self._progress(module),
                                  opened=self.prefetch.opened(module.path, image.build_id))
        except AliceError as error:
            log.warning("debug info of %s unusable: %s", module.path, error)
            if isinstance(error, MissingAltFile) and self._report is not None:  # gdb's error, once
                self._report(Output("warning", f"{error}\n", of_symbols=True))
            info = None
        self._debug[module.path] = (image, info)
        return info

    def _progress(
        self, module: Module, title: str = "Loading debug info of", kind: str = "symbols"
    ) -> Callable[[str, float | None], None] | None:
        """Progress events for building a module's index (a cached load is silent: it is
        over before anyone could watch it)."""
        report = self._report
        if report is None:
            return None
        ident = f"{kind}:{module.path}"
        started = False

        def progress(message: str, fraction: float | None) -> None:
            nonlocal started
            done = fraction is not None and fraction >= 1.0
            if not started and done:
                return
            started = True
            percent = None if fraction is None else round(100 * fraction, 1)
            heading = f"{title} {os.path.basename(module.path)}"
            report(Progress(ident, heading, message, percent, done))

        return progress

    def debug_image(self, module: Module) -> ElfImage | None:
        """The ELF file holding the module's DWARF and full symbol table: the module itself,
        or its separate debug file (found by build id or debuglink, e.g. libc6-dbg's)."""
        info = self.debug_info(module)
        path = info.debug_file if info is not None else None
        if path is None or path == module.path:
            return self.symbols.image_of(module.path)
        if path not in self._debug_images:
            try:
                self._debug_images[path] = image = ElfImage.load(path)
                if info is not None:  # the DebugInfo read from this file
                    info.adopt_debug_file_symbols(image)
            except AliceError as error:
                log.warning("debug file %s unusable: %s", path, error)
                self._debug_images[path] = None
        return self._debug_images[path]

    def module_symbols(self, module: Module) -> ModuleSymbols | None:
        key = (module.path, module.base)
        if key not in self._values:
            image = self.debug_image(module)
            values = None
            if image is not None:
                try:
                    values = ModuleSymbols(image, is_executable=module.is_main)
                    if not values.has_dwarf:
                        values = None
                    else:
                        values.units.name_index = self._name_index(module, image).units_named
                        info = self.debug_info(module)
                        values.units.stored = info.stored_rows if info is not None else None
                        values.type_index = self._type_index(image)
                        values.tls_block = self._tls_block(module)
                except AliceError as error:
                    log.warning("variables of %s unusable: %s", module.path, error)
            self._values[key] = values
        return self._values[key]

    def all_module_symbols(self) -> list[tuple[Module, ModuleSymbols]]:
        """The variables of every module with DWARF, its own or a separate debug file's
        (main first, then load order), for names not found in the frame. Each module's
        names index (globalnames.py) keeps an unknown name from parsing every unit."""
        modules = self.symbols.modules()
        key = tuple((module.path, module.base) for module in modules)
        if self._all_key != key:
            found = [(module, self.module_symbols(module)) for module in modules]
            self._all = [(module, symbols) for module, symbols in found if symbols is not None]
            self._all_key = key
        return self._all

    def _tls_block(self, module: Module) -> Callable[[FrameContext], int] | None:
        """A library's thread-local block (the executable's is found without the loader)."""
        from aliceserver.debuggers.symbols.tls import ModuleTls, tls_segment

        image = self.symbols.image_of(module.path)
        segment = tls_segment(image) if image is not None and not module.is_main else None
        if segment is None:
            return None
        tls = ModuleTls(segment, module.base, lambda: self.symbols.link_map_node(module.path))
        return lambda ctx: tls.block(ctx.read_memory, ctx.fs_base)

    def _name_index(self, module: Module, image: ElfImage) -> GlobalNameIndex:
        index = self._name_indexes.get(image.path)
        if index is None:
            progress = self._progress(module, "Indexing global names of", "names")
            index = GlobalNameIndex(image.path, image.build_id, self._cache, progress)
            self._name_indexes[image.path] = index
        return index

    def global_names(self, module: Module) -> dict[str, list[int]] | None:
        """The module's names index (name -> units defining it); None: none is readable."""
        image = self.debug_image(module)
        return self._name_index(module, image).names() if image is not None else None

    def _type_index(self, image: ElfImage) -> TypeNameIndex:
        index = self._type_indexes.get(image.path)
        if index is None:
            index = self._type_indexes[image.path] = TypeNameIndex(image.path, image.build_id, self._cache)
        return index

    def debug_infos(self) -> list[tuple[Module, DebugInfo]]:
        """The loaded modules that have debug info, with it."""
        found = []
        for module in self.symbols.modules():
            info = self.debug_info(module)
            if info is not None:
                found.append((module, info))
        return found

    # --- locations (resolver.py) -----------------------------------------------------
    def resolve(self, spec: str, program_only: bool = False, read: ReadMemory | None = None) -> list[CodeLocation]:
        """`file:line`, `function` or `*address` -> runtime locations (empty: none yet)."""
        return self._resolver.resolve(spec, program_only, read)

    def functions_in_file(self, name: str, file: str | None) -> list[CodeLocation]:
        return self._resolver.functions_in_file(name, file)

    def address_place(self, address: int) -> CodeLocation:
        return self._resolver.address_place(address)

    def function_symbol(self, name: str, program_only: bool = False) -> int | None:
        return self._resolver.function_symbol(name, program_only)

    def source_files(self) -> list[str]:
        files: set[str] = set()
        for _module, info in self.debug_infos():
            files.update(info.source_files())
        return sorted(files)

    def source_name(self, path: str) -> str:
        """The name the debug info gives `path` (see DebugInfo.source_name), else `path`."""
        for _module, info in self.debug_infos():
            name = info.source_name(path)
            if name is not None:
                return name
        return path

    def location_of(self, address: int) -> CodeLocation:
        symbol = self.symbols.lookup_address(address)
        return CodeLocation(address, self.function_name(address), self.position(address), symbol.module)

    # --- positions --------------------------------------------------------------------
    def _info_at(self, address: int) -> tuple[Module, DebugInfo] | None:
        module = self.symbols.module_at(address)
        if module is None:
            return None
        info = self.debug_info(module)
        return None if info is None else (module, info)

    def position(self, address: int) -> SourcePosition | None:
        found = self._info_at(address)
        if found is None:
            return None
        module, info = found
        row = info.location_at(address - module.base)
        if row is None:
            return None
        return _as_gdb_names(SourcePosition(row.file, row.line, row.column), module, info, address)

    def function_name(self, address: int) -> str | None:
        found = self._info_at(address)
        if found is not None:
            function = found[1].function_at(address - found[0].base)
            if function is not None:
                return self.shown_name(function.name, address)
        name = self.symbols.lookup_address(address).name  # a minimal symbol: its natural name
        return natural_name(name, self.demangler) if name is not None else None

    def line_row(self, address: int) -> tuple[int, int, SourcePosition, bool] | None:
        """Runtime [start, end), position and is_stmt of the one row holding `address`."""
        found = self._info_at(address)
        if found is None:
            return None
        module, info = found
        link = address - module.base
        row, span = info.location_at(link), info.row_range_at(link)
        if row is None or span is None:
            return None
        where = SourcePosition(row.file, row.line, row.column)
        return span[0] + module.base, span[1] + module.base, where, row.is_stmt

    def function_range(self, address: int) -> tuple[int, int, int] | None:
        """(low, high, address after the prologue) of the function holding `address`."""
        module = self.symbols.module_at(address)
        if module is None:
            return None
        key = (module.path, module.base, address)  # asked at every step
        return by_pc(self._function_ranges, key, lambda: self._function_range(address), _FRAME_NAMES)

    def _function_range(self, address: int) -> tuple[int, int, int] | None:
        found = self._info_at(address)
        if found is None:
            return None
        module, info = found
        function = info.function_at(address - module.base)
        base = module.base
        if function is not None and function.file is not None:
            return function.low + base, function.high + base, function.step_address + base
        return self._dwarf_function_range(module, address)

    def _dwarf_function_range(self, module: Module, address: int) -> tuple[int, int, int] | None:
        """From the DWARF subprogram (a function only the separate debug file's symbol table
        names, like libc's __strlen_evex): its range; its first line is its entry."""
        symbols = self.module_symbols(module)
        if self.position(address) is None:
            return None  # no line info there (a PLT stub): none of ours
        link = address - module.base
        try:
            cu = symbols.units.cu_for_address(link) if symbols else None
            found = symbols.units.function_die_at(cu, link) if symbols and cu else None
            ranges = symbols.units.die_ranges(found.subprogram) if symbols and found else []
        except (AliceError, ValueError, KeyError) as error:
            log.debug("no DWARF function range at %#x: %s", address, error)
            return None
        for low, high in ranges:
            if low <= link < high:
                return low + module.base, high + module.base, low + module.base
        symbol = self.debug_symbol(address)  # assembly: line info, but no subprogram DIE
        if symbol is not None and symbol[1].size:
            low = symbol[1].address + module.base
            return low, low + symbol[1].size, low
        return None

    # --- frames -----------------------------------------------------------------------
    @property
    def arch(self) -> Architecture:
        """The program's architecture, by its ELF machine (x86-64 before there is one)."""
        main = self.symbols.main()
        image = self.symbols.image_of(main.path) if main is not None else None
        return X86_64_ARCH if image is None else by_e_machine(image.machine)

    def unwind(self, registers: Mapping[str, int], read: ReadMemory, limit: int) -> list[UnwoundFrame]:
        return unwind_stack(registers, read, self.symbols, self.cfi, limit, self.arch)

    def innermost(self, registers: Mapping[str, int], read: ReadMemory) -> UnwoundFrame:
        """Frame 0 alone with its CFA, the cheap way when the CFA is register + offset
        (what breakpoint conditions need at every hit); else a one-frame unwind."""
        arch = self.arch
        pc = registers[arch.pc]
        module = self.symbols.module_at(pc)
        table = self.cfi(module) if module is not None else None
        row = None
        if table is not None and module is not None:
            try:
                row = table.row_at(pc - module.base)
            except AliceError:
                row = None
        name = arch.register_name(row.cfa.register) if row is not None else None
        if row is None or row.cfa.expression is not None or name is None or name not in registers:
            return self.unwind(registers, read, limit=1)[0]
        cfa = (registers[name] + row.cfa.offset) & (1 << 64) - 1
        return UnwoundFrame(0, pc, cfa, registers, SymbolLocation(pc, None, 0, None), "first", arch=arch)

    def frame_function(self, frame: UnwoundFrame, lookup: int) -> str | None:
        """The name gdb's `bt` shows: qualified, without the parameter list; a static
        function without a symbol is named from its DWARF subprogram."""
        if frame.signal_trampoline:  # __restore_rt (the debug file's local symbol) at any pc of it, not pc - 1
            return self._debug_symbol_name(frame.pc) or frame.symbol.name
        module = self.symbols.module_at(lookup)
        if module is None:
            return self._frame_function(lookup)
        return by_pc(self._frame_names, (module.path, module.base, lookup), lambda: self._frame_function(lookup), _FRAME_NAMES)

    def _frame_function(self, lookup: int) -> str | None:
        if self._info_at(lookup):  # a C (C++) function: by its DWARF symbol's name, as gdb
            found = self.function_die(lookup)
            named = funcnames.frame_function_name(found) if found is not None else None
            if named:
                return named
        name = self.function_name(lookup) if self._info_at(lookup) else None
        # The debug file's symbol table before its DWARF: the same name for static functions
        # (libc's __libc_start_call_main), without decompressing and parsing its units. A
        # compiler-made clone (`msort_with_tmp.part.0`, `.isra.0`) is named from DWARF, as gdb.
        symbol_name = None if name else self._debug_symbol_name(lookup)
        if symbol_name is not None and "." in symbol_name:
            symbol_name = self._dwarf_function(lookup) or symbol_name
        if not name and symbol_name is not None and symbol_name.startswith(("_Z", "_R")):
            return natural_name(symbol_name, self.demangler)  # a minimal symbol's, as gdb's
        name = name or symbol_name or self._dwarf_function(lookup)
        if name:
            return funcnames.without_parameters(name)
        return self.function_name(lookup)  # a minimal symbol's, parameters and all, as gdb's

    def debug_symbol(self, address: int) -> tuple[Module, ElfSymbol, int] | None:
        """The debug file's own symbol at `address` (it keeps the local ones a stripped
        library dropped): (module, symbol, offset)."""
        module = self.symbols.module_at(address)
        image = self.debug_image(module) if module is not None else None
        if module is None or image is None:
            return None
        found = image.symbol_at(address - module.base)
        return None if found is None else (module, found[0], found[1])

    def _debug_symbol_name(self, address: int) -> str | None:
        found = self.debug_symbol(address)
        return found[1].name if found is not None else None

    def shown_name(self, symbol: str, address: int) -> str:
        """A function's name as gdb shows it: a gcc copy (f.constprop.0), or a C function
        whose code another one's name shares (folded: -fipa-icf), by its DWARF name."""
        if _CLONE_SUFFIX.search(symbol) or ("(" not in symbol and self._folded(address)):
            return self._dwarf_function(address) or symbol
        if "(" not in symbol or "::" in symbol:  # C++ without a linkage name: `main()`, `Local::m()`
            found = self.function_die(address, cplus_only=True)
            return (funcnames.unlinked_name(found) if found is not None else None) or symbol
        return symbol

    def _folded(self, address: int) -> bool:
        """Whether the function at `address` has several names in a module with its own
        DWARF (a separate debug file's library, libc, keeps its symbols' names)."""
        module = self.symbols.module_at(address)
        image = self.symbols.image_of(module.path) if module is not None else None
        if module is None or image is None or not self._own_debug_info(module):
            return False
        hit = image.symbol_at(address - module.base)
        return hit is not None and image.shared_by_functions(hit[0].address)

    def _own_debug_info(self, module: Module) -> bool:
        info = self.debug_info(module)
        path = info.debug_file if info is not None else None
        if path is None:
            return False
        own = self._own_debug_files.get((path, module.path))
        if own is None:  # asked for every breakpoint and frame: realpath lstats each component
            own = self._own_debug_files[path, module.path] = os.path.realpath(path) == os.path.realpath(module.path)
        return own

    def _dwarf_function(self, address: int) -> str | None:
        return die_name(found) if (found := self.function_die(address)) is not None else None

    def function_die(self, address: int, *, cplus_only: bool = False) -> DIE | None:
        module = self.symbols.module_at(address)
        if module is None or (symbols := self.module_symbols(module)) is None:
            return None
        try:
            cu = symbols.units.cu_for_address(address - module.base)
            if cu is not None and cplus_only and not funcnames.is_cplus_unit(cu.get_top_DIE()):
                return None  # C: gdb shows the symbol's name; no walk of the unit (3-10 ms)
            found = symbols.units.function_die_at(cu, address - module.base) if cu else None
        except (AliceError, ValueError, KeyError) as error:  # pyelftools on odd DWARF
            log.debug("no DWARF function at %#x: %s", address, error)
            return None
        return found.subprogram if found is not None else None

    def block_at(self, address: int) -> int:
        """gdb's block_for_pc: the DIE offset of the innermost block holding runtime
        `address`, an inlined call or a lexical block that declares something (gdb makes no
        block of one that declares nothing: its code is its parent's); 0: the function's."""
        module = self.symbols.module_at(address)
        if module is None or (symbols := self.module_symbols(module)) is None:
            return 0
        try:
            cu = symbols.units.cu_for_address(address - module.base)
            found = symbols.units.function_die_at(cu, address - module.base) if cu else None
        except (AliceError, ValueError, KeyError) as error:  # pyelftools on odd DWARF
            log.debug("no DWARF block at %#x: %s", address, error)
            return 0
        for scope in reversed(found.scopes[1:] if found is not None else ()):
            if scope.tag == "DW_TAG_inlined_subroutine" or any(
                    child.tag in _BLOCK_SYMBOL_TAGS for child in children(scope)):  # fmt: skip
                return int(scope.offset)
        return 0

    def inline_chain(self, frame: UnwoundFrame) -> tuple[DIE, ...]:
        """The DW_TAG_inlined_subroutine DIEs around the frame's pc, outermost first."""
        return self.inline_chain_at(lookup_pc(frame))

    def inline_ranges(self, address: int, die: DIE) -> tuple[tuple[int, int], ...]:
        """Runtime ranges of an inlined call (`die`, from the chain at `address`)."""
        module = self.symbols.module_at(address)
        symbols = self.module_symbols(module) if module is not None else None
        if module is None or symbols is None:
            return ()
        return tuple((low + module.base, high + module.base) for low, high in symbols.units.die_ranges(die))

    def call_site(self, address: int, die: DIE) -> SourcePosition | None:
        """Where the inlined call `die` (from the chain at `address`) was made."""
        module = self.symbols.module_at(address)
        info = self.debug_info(module) if module is not None else None
        site = call_site_position(info, die)  # named as its unit names it, as frame 0's line
        return site if site is None or info is None or module is None else _as_gdb_names(site, module, info, address)

    def inline_chain_at(self, lookup: int) -> tuple[DIE, ...]:
        """The DW_TAG_inlined_subroutine DIEs around runtime `lookup`, outermost first: kept
        by pc, as frame names (a next's stops come back to the same pcs: 4 asks a stop)."""
        module = self.symbols.module_at(lookup)
        symbols = self.module_symbols(module) if module is not None else None
        if module is None or symbols is None:
            return ()
        return by_pc(self._inline_chains, (module.path, module.base, lookup),
                     lambda: self._inline_chain(symbols, lookup - module.base, lookup), _FRAME_NAMES)  # fmt: skip

    @staticmethod
    def _inline_chain(symbols: ModuleSymbols, link: int, lookup: int) -> tuple[DIE, ...]:
        try:
            cu = symbols.units.cu_for_address(link)
            found = symbols.units.function_die_at(cu, link) if cu is not None else None
        except (AliceError, ValueError, KeyError) as error:  # pyelftools on odd DWARF
            log.debug("no inlined calls at %#x: %s", lookup, error)
            return ()
        return found.inlined if found is not None else ()

    def stack_frames(self, frame: UnwoundFrame) -> list[StackFrame]:
        """The frames gdb shows for one physical frame, innermost first: one per inlined
        call around its pc (same pc and CFA; the innermost at the line table's position,
        each caller at the call's DW_AT_call_file:line), then the function itself.
        What they show depends on the place in the code alone, but for level and CFA: a
        loop stopping at the same breakpoint shows the same callers at every stop."""
        module = self.symbols.module_at(lookup_pc(frame))
        if module is None:
            return self._stack_frames(frame)
        key = (module.path, module.base, frame.pc, frame.level == 0 or frame.method == "signal",
               frame.signal_trampoline, frame.symbol)  # fmt: skip
        found = by_pc(self._places, key, lambda: self._stack_frames(frame), _FRAME_NAMES)
        if found[-1].level == frame.level and found[-1].cfa == frame.cfa:
            return list(found)  # the same depth as before (the loop's next stop): frozen, shared
        return [replace(shown, level=frame.level, cfa=frame.cfa) for shown in found]

    def _stack_frames(self, frame: UnwoundFrame) -> list[StackFrame]:
        physical = self.stack_frame(frame)
        if self.is_program_main(frame, physical.function):
            physical = replace(physical, program_main=True)
        chain = self.inline_chain(frame)
        if not chain:
            return [physical]
        shown = []
        source = physical.source
        for die in reversed(chain):
            shown.append(
                replace(physical, function=funcnames.frame_function_name(die, inlined=True) or die_name(die), source=source, inlined=True,
                        program_main=False)
            )
            source = self.call_site(lookup_pc(frame), die)
        shown.append(replace(physical, source=source))
        return shown

    def is_program_main(self, frame: UnwoundFrame, function: str | None) -> bool:
        """gdb's inside_main_func: the frame runs the executable's main function, the
        subprogram marked DW_AT_main_subprogram (Rust's `crate::main`) or else C's `main`."""
        lookup = lookup_pc(frame)
        module = self.symbols.module_at(lookup)
        if module is None or not module.is_main:
            return False
        if function == "main":  # C's, unless the program names another (gdb's main_name)
            return not any(self._marked_main(module, f.low + module.base) for f in self._crate_mains(module))
        found = self._marked_main(module, lookup)
        if found is None:
            return False
        key = (module.path, found.offset)  # (a crate's namespace may have thousands of children)
        if key not in self._shadowed_mains:
            self._shadowed_mains[key] = _shadowed_by_namespace(found)
        return not self._shadowed_mains[key]

    def _crate_mains(self, module: Module) -> list[FunctionMatch]:
        """The module's functions named `CRATE::main` (Rust's, rustc's C `main` calls it)."""
        info = self.debug_info(module)
        return [f for f in info.functions_named("main") if f.name.count("::") == 1] if info is not None else []

    def _marked_main(self, module: Module, address: int) -> DIE | None:
        """The subprogram at `address` if it is marked DW_AT_main_subprogram."""
        symbols = self.module_symbols(module)
        if symbols is None:
            return None
        try:
            cu = symbols.units.cu_for_address(address - module.base)
            found = symbols.units.function_die_at(cu, address - module.base) if cu is not None else None
        except (AliceError, ValueError, KeyError) as error:  # pyelftools on odd DWARF
            log.debug("no DWARF function at %#x: %s", address, error)
            return None
        marked = found is not None and attr_value(found.subprogram, "DW_AT_main_subprogram")
        return found.subprogram if marked and found is not None else None

    def stack_frame(self, frame: UnwoundFrame) -> StackFrame:
        # A caller's pc is a return address: the call is the instruction before it.
        lookup = lookup_pc(frame)
        position = self.position(lookup)
        return StackFrame(
            level=frame.level, pc=frame.pc, cfa=frame.cfa,
            function=self.frame_function(frame, lookup) or frame.symbol.name, source=position,
            module=frame.symbol.module, symbol=frame.symbol,
            signal_trampoline=frame.signal_trampoline,
        )  # fmt: skip


def _shadowed_by_namespace(main: DIE) -> bool:
    """Whether a namespace beside `main` has its name: rustc makes one for the items inside
    a function (`crate::main::{closure#0}`), and gdb's inside_main_func, looking `crate::main`
    up by name, finds that namespace, not a function, and so does not end backtraces there
    (a crate whose main holds a closure shows the runtime's frames below it)."""
    name = die_name(main)
    parent = main.get_parent()
    if name is None or parent is None:
        return False
    return any(child.tag == "DW_TAG_namespace" and die_name(child) == name for child in children(parent))


def lookup_pc(frame: UnwoundFrame) -> int:
    """The pc to look a frame up by: a caller's pc is a return address, and the call is the
    instruction before it."""
    return frame.pc if frame.level == 0 or frame.method == "signal" else frame.pc - 1


def _as_gdb_names(place: SourcePosition, module: Module, info: DebugInfo, address: int) -> SourcePosition:
    """`place` at `address` with gdb's names from its unit's symtab (`./nptl/futex-internal.c`)."""
    symtab = info.symtab_name_at(address - module.base, place.path)
    unit = None if (offset := info.cu_offset_at(address - module.base)) is None else (module.path, offset)
    if symtab is None or (symtab.filename == place.path and symtab.missing_fullname == place.path):
        return replace(place, unit=unit)
    return replace(place, symtab=symtab.filename, symtab_fullname=symtab.missing_fullname, unit=unit)

