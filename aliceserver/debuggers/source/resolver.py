"""gdb's linespecs over one program's symbols (the locations SourceSymbols resolves):
`FILE:LINE`, `FUNCTION` (with its inlined copies, or past the frame setup of a function
without line info), `*ADDRESS`, and the function symbols expressions call."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, TypeVar

from elftools.dwarf.die import DIE

from aliceserver.debuggers.model import CodeLocation, Module, SourcePosition
from aliceserver.debuggers.source import linespec
from aliceserver.debuggers.source.debugfilesyms import debug_file_symbol, debug_file_symbols
from aliceserver.debuggers.source.ifuncs import Ifuncs, resolved_target
from aliceserver.debuggers.symbols.cxx_minimal import cxx_functions_named
from aliceserver.debuggers.symbols.dwarf import inlinemap
from aliceserver.debuggers.symbols.dwarf.dies import attr_value, die_name
from aliceserver.debuggers.symbols.dwarf.index import DebugInfo
from aliceserver.debuggers.symbols.dwarf.inlinemap import InlineMap
from aliceserver.debuggers.symbols.dwarf.inlines import (
    InlineFinder,
    InlineSite,
    _lto_units,
    breakpoint_address,
    inline_sites,
    query_leaf,
)
from aliceserver.debuggers.symbols.dwarf.model import FunctionMatch
from aliceserver.debuggers.symbols.dwarf.names import (
    normalize_query,
    same_params,
    split_qualified,
    strip_signature,
)
from aliceserver.debuggers.symbols.dwarf.outofline import Definition, defined_functions
from aliceserver.debuggers.symbols.dwarf.paramtypes import canonical_parameters
from aliceserver.debuggers.symbols.dwarf.physname import c_function_name, shown_function_name
from aliceserver.debuggers.symbols.dwarf.prologue import frame_setup_length
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
from aliceserver.debuggers.symbols.dwarf.types import Type, TypedefType, type_name
from aliceserver.debuggers.symbols.elf import TARGET_FILE, ElfImage, ElfSymbol
from aliceserver.debuggers.symbols.linkmap import ReadMemory
from aliceserver.errors import AliceError, ProtocolError

if TYPE_CHECKING:
    from aliceserver.debuggers.source.sourcesymbols import SourceSymbols

log = logging.getLogger(__name__)
_Answer = TypeVar("_Answer")  # what a module's one walk answers for a name

_FUNCTION_PLACES = 65536  # functions' places remembered
_DW_LANG_MIPS_ASSEMBLER = 0x8001  # what gas writes for a `.S` file's unit
_FILE_LINE = re.compile(r"^(?P<file>.+):(?P<line>\d+)$")


class LocationResolver:
    def __init__(self, source: SourceSymbols) -> None:
        self._source = source
        self._inline_finders: dict[str, InlineFinder | None] = {}  # by module path
        self._inline_maps: dict[str, tuple[DebugInfo, InlineMap | None]] = {}  # by module path
        # A function's places in one module, by (module path, base, name), with the debug
        # info they were read from: 10,000 breakpoints are resolved again at each run and
        # each library load, and each costs an index lookup and a prologue analysis.
        self._function_places: dict[tuple[str, int, str], tuple[DebugInfo, list[CodeLocation]]] = {}
        # Each module's code symbol of a name, the same way (a scan of its table per name:
        # past a few, the table builds its whole name index, 5-7 MB for CPython's)
        self._code_symbols: dict[tuple[str, int, str], tuple[ElfImage, ElfSymbol | None, bool]] = {}
        # Each module's C++ function symbols a name matches, the same way
        self._cxx_named: dict[tuple[str, int, str], tuple[ElfImage, list[tuple[ElfSymbol, str]]]] = {}
        self._ifuncs = Ifuncs()
        self._ifunc_sites: dict[int, str] = {}  # an ifunc's resolver place -> its symbol's name

    def resolve(self, spec: str, program_only: bool = False, read: ReadMemory | None = None) -> list[CodeLocation]:
        """`file:line`, `function` or `*address` -> runtime locations (empty: none yet);
        `program_only`: before `run`, when gdb has read no library's symbols; `read`: the
        process's memory (where an ifunc resolved to, ifuncs.py)."""
        text = spec.strip()
        if not text:
            raise ProtocolError("empty location")
        if text.startswith("*"):
            try:
                address = int(text[1:].strip(), 0)
            except ValueError:
                raise ProtocolError(f"bad address in location {spec!r}") from None
            return [self.address_place(address)]
        match = _FILE_LINE.match(text)
        if match is not None:
            return self._resolve_line(match["file"].strip('"'), int(match["line"]))
        if len(text) > 2 and text[0] == text[-1] == "'" and "'" not in text[1:-1]:
            return self._resolve_function(text[1:-1], program_only, read)  # gdb's quoting: 'solib_step@plt'
        parts = linespec.scopes(text)
        if len(parts) > 1:  # FILE:FUNCTION, FUNCTION:LABEL
            return linespec.resolve_scoped(self._source, parts)
        return self._resolve_function(text, program_only, read)

    def address_place(self, address: int) -> CodeLocation:
        """`*ADDRESS`'s place, named as gdb's sal.symbol there (linespec.c
        convert_address_location_to_sals: find_pc_sect_containing_function): the function
        holding it, inlined or not, by its DWARF symbol's name where it is C's (`twice` for
        an address in its inlined copy in main, libc's `__GI___sigaction` for sigaction's)."""
        place = self._source.location_of(address)
        named = self._dwarf_name(address, self._source.inline_chain_at(address)) if place.source else None
        return place if named is None or named == place.function else replace(place, function=named)

    def _dwarf_name(self, address: int, chain: tuple[DIE, ...]) -> str | None:
        """The name of the function holding `address`, inlined or not (`chain`: the inlined
        calls there), by its DWARF symbol where gdb's is that: C's (c_function_name), an
        inlined call's or an assembler unit's DW_AT_name; None for other languages'."""
        die = chain[-1] if chain else self._source.function_die(address)
        if die is None:
            return None
        if chain:
            return shown_function_name(die)
        return c_function_name(die) or (die_name(die) if _assembler(die) else None)

    def functions_in_file(self, name: str, file: str | None) -> list[CodeLocation]:
        """`break FILE:FUNCTION`: the function's locations whose source is FILE."""
        found = self._resolve_function(name)
        if file is None:
            return found
        return [place for place in found if place.source is not None and linespec.same_file(file, place.source.path)]

    def _resolve_line(self, file: str, line: int) -> list[CodeLocation]:
        found = self._resolve_line_in(file, line)
        if found or not os.path.isabs(file) or not self._source.source_paths.configured():
            return _best_lines(found)
        # A file where the source paths put a debug info's one (gdb compares fullnames too)
        for module, info in self._source.debug_infos():
            for path in self._source.source_paths.debug_paths_for(file, info.source_files()):
                found += self._resolve_line_in(path, line, only=(module, info))
        return _best_lines(found)

    def _resolve_line_in(
        self, file: str, line: int, only: tuple[Module, DebugInfo] | None = None
    ) -> list[tuple[int, CodeLocation]]:
        """Each place with the line it is bound to (the next line with code where `line`
        has none in that file)."""
        locations = []
        for module, info in [only] if only is not None else self._source.debug_infos():
            resolved = info.resolve_line(file, line, partial(self._line_block, module))
            if resolved is None:
                continue
            for link_address in resolved.addresses:
                address = link_address + module.base
                function = info.function_at(link_address)
                chain = self._source.inline_chain_at(address)  # as gdb: the innermost, inlined or not
                name = shown_function_name(chain[-1]) if chain else (
                    self._source.shown_name(function.name, address) if function else None)
                image = self._source.symbols.image_of(module.path)
                if chain or function is None or info.debug_file != module.path or (
                        image is not None and image.shared_by_functions(function.low)):  # (may differ)
                    name = self._dwarf_name(address, chain) or name  # gdb's create_sals_line_offset
                source = SourcePosition(resolved.file, resolved.line)
                row = info.location_at(link_address) if link_address in resolved.past_prologue else None
                if row is not None:  # gdb: the prologue skip's line, in its file (an #include's)
                    source = SourcePosition(row.file, row.line)
                if chain and link_address in resolved.past_prologue:  # as for `break FUNCTION`
                    source = call_site_position(info, chain[0]) or source
                place = CodeLocation(address, name, with_symtab(source, info, link_address), module.path,
                                     requested_line=resolved.requested_line)  # fmt: skip
                locations.append((resolved.line, place))
        return locations

    def _resolve_function(self, name: str, program_only: bool | None = None,
                          read: ReadMemory | None = None) -> list[CodeLocation]:  # fmt: skip
        """`program_only` None: FILE:FUNCTION's search (the function's own copies alone);
        else a plain NAME, set at each module's function symbol too (the program's alone
        before `run`). A parameter list that names no function as typed is read again as
        gdb reads it: its typedefs replaced, its types spelled as the demangler's
        (`AddTarget(const std::string&, TimeStamp)`)."""
        found = self._resolve_function_as_named(name, program_only, read)
        if found or "(" not in name:
            return found
        spelled = self._parameters_spelled_out(name)
        return self._resolve_function_as_named(spelled, program_only, read) if spelled != name else found

    def _parameters_spelled_out(self, name: str) -> str:
        key, params = normalize_query(name)
        if params is None:
            return name
        spelled = canonical_parameters(params, self._typedef_target)
        return name if spelled == params else key + spelled

    def _typedef_target(self, name: str) -> str | None:
        """The type a typedef called `name` names, as text (None: no module defines one)."""
        found = self._typedef_named(name)
        return type_name(found.target) if found is not None else None

    def _typedef_named(self, name: str) -> TypedefType | None:
        """The typedef called `name` in the first module whose DWARF names a type so (None:
        that type is no typedef, or no module has it)."""
        for _module, symbols in self._source.all_module_symbols():
            found = symbols.find_type(name)
            if found is not None:
                return found if isinstance(found, TypedefType) else None
        return None

    def _resolve_function_as_named(self, name: str, program_only: bool | None,
                                   read: ReadMemory | None) -> list[CodeLocation]:  # fmt: skip
        locations = []
        modules = self._source.symbols.modules()
        main = next((m for m in modules if m.is_main), None)
        image = self._source.symbols.image_of(main.path) if main is not None else None
        ahead = image is not None and len(modules) <= 2  # before the libraries load
        ahead = ahead and not any(m.path.startswith(TARGET_FILE) for m in modules)  # (not a stub's)
        if ahead and main is not None and image is not None:  # (its index may be built now)
            self._source.prefetch.search_program(main.path, image, name)
        infos = self._source.debug_infos()
        if ahead and image is not None:
            self._source.prefetch.program_indexed()
            self._prefetch(image, modules, infos, name)
        for module, info in infos:
            if program_only and not module.is_main:
                continue  # (gdb has read no library's symbols, ld.so's neither)
            key = (module.path, module.base, name)
            known = self._function_places.get(key)
            if known is not None and known[0] is info:
                locations += known[1]
                continue
            found = self._function_places_in(module, info, name)
            if len(self._function_places) >= _FUNCTION_PLACES:
                self._function_places.pop(next(iter(self._function_places)))
            self._function_places[key] = (info, found)
            locations += found
        if program_only is not None:
            locations += self._symbol_places(name, locations, program_only)
        if self._ifunc_sites and any(place.address in self._ifunc_sites for place in locations):
            locations = self._ifunc_targets(locations, read)
        if locations or program_only:
            return locations
        fallback = self._minimal_symbol(name)  # a function without debug info (libc)
        if fallback is None and (local := debug_file_symbols(self._source, name)):
            return [self._debug_file_location(address, name) for address in local]
        if fallback is None:  # gdb's trampoline symbol: the stub calling a library not loaded yet
            stub = self._minimal_symbol(f"{name}@plt")
            return [] if stub is None else [self._source.location_of(stub)]
        return [self._source.location_of(self._past_frame_setup(fallback))]

    def _minimal_symbol(self, name: str) -> int | None:
        """The runtime address of the ELF symbol `name`, or of the C++ one gdb names so (its
        natural name, demangled: `'operator new(unsigned long)@plt'`)."""
        found = self._source.symbols.lookup_name(name)
        if found is not None or "(" not in name:
            return found
        for module, _info in self._source.debug_infos():
            linkage = self._linkage_in(module, name)
            if linkage != name:
                return self._source.symbols.lookup_name(linkage)
        return None

    def _linkage_in(self, module: Module, name: str) -> str:
        """The mangled name of the module's C++ symbol whose natural name is `name` (from
        its index's demangled names: a module without debug info has none), else `name`."""
        if "(" not in name:
            return name
        info = self._source.debug_info(module)
        return (info.linkage_name(name) if info is not None else None) or name

    def _prefetch(self, image: ElfImage, modules: list[Module], infos: list[tuple[Module, DebugInfo]],
                  name: str) -> None:  # fmt: skip
        """Before the libraries load (only the program and its loader are), when a loaded
        library was indexed just now (no session on this machine ran it before): the
        libraries to come are likely as new, so their DWARF is searched for `name` ahead,
        for the searches of its definitions and inlined copies to come (sectionprefetch.py)."""
        if any(i.built and not m.is_main for m, i in infos):
            built = [i.sections for _m, i in infos if i.built]
            self._source.prefetch.start(image, [m.path for m in modules], built, query_leaf(name))

    def _function_places_in(self, module: Module, info: DebugInfo, name: str) -> list[CodeLocation]:
        locations: list[CodeLocation] = []
        matches = info.functions_named(name)
        if not matches:  # a static function the (debug file's) symbol table lacks
            found = self._defined_functions(module, info, name)
            params = normalize_query(name)[1]
            if params is not None:  # `main(double)`: that overload, or none (gdb's "not defined")
                found = [entry for entry in found if self._has_params(module.base + entry[1], params)]
            matches = [info.match_of(*entry) for entry in found]
        image = self._source.symbols.image_of(module.path)
        for match in matches:
            if image is not None and self._ifuncs.is_ifunc(image, match.low):
                locations.append(self._ifunc_site(module, match))
                continue
            locations.append(self._match_place(module, info, name, match))
        bound = {location.address for location in locations}
        locations += [c for c in self._inlined_copies(module, info, name) if c.address not in bound]
        return locations

    def _has_params(self, address: int, params: str) -> bool:
        """Whether the function at `address` takes `params`, as its print name says (a C
        function's has none: gdb finds no `main(int)` in C)."""
        die = self._source.function_die(address)
        shown = shown_function_name(die) if die is not None else None
        actual = strip_signature(shown)[1] if shown else None
        return actual is not None and same_params(actual, params)

    def _match_place(self, module: Module, info: DebugInfo, name: str, match: FunctionMatch) -> CodeLocation:
        """The place of a function `break NAME` found, past its prologue."""
        address = match.breakpoint_address + module.base
        source = SourcePosition(match.file, match.line) if match.file and match.line else None
        chain = self._source.inline_chain_at(address) if address != match.low + module.base else ()
        if chain:  # past the prologue inside an inlined call: gdb shows the call's line
            source = call_site_position(info, chain[0]) or source
        shown = self._symbol_name(module, info, name, match.low, address) if source else None
        return CodeLocation(address, shown or self._source.shown_name(match.name, address),
                            with_symtab(source, info, match.breakpoint_address), module.path)  # fmt: skip

    def _ifunc_site(self, module: Module, match: FunctionMatch) -> CodeLocation:
        """An ifunc's resolver entry, a minimal symbol's place (no line, named as gdb's
        `<strlen_ifunc>`: the function there), remembered for _ifunc_targets."""
        address = match.low + module.base
        die = self._source.function_die(address)
        shown = _function_name(die) if die is not None else None
        self._ifunc_sites[address] = match.linkage_name
        return CodeLocation(address, shown or match.name, None, module.path, ifunc=True)

    def _ifunc_targets(self, places: list[CodeLocation], read: ReadMemory | None) -> list[CodeLocation]:
        """Each ifunc's resolver place moved to the function it resolved to, where that is
        known now (ifuncs.resolved_target; asked at each resolution, as gdb at each re-set)."""
        moved: list[CodeLocation] = []
        for place in places:
            symbol = self._ifunc_sites.get(place.address) if place.source is None else None
            target = resolved_target(self._source, symbol, read) if symbol is not None else None
            if target is not None:
                place = self._target_place(target)
            if all(place.address != other.address for other in moved):
                moved.append(place)
        return moved

    def _target_place(self, target: int) -> CodeLocation:
        """The start of the function at runtime `target`, as gdb's find_function_start_sal."""
        module = self._source.symbols.module_at(target)
        info = self._source.debug_info(module) if module is not None else None
        if module is None or info is None:
            return self._source.location_of(target)
        link = target - module.base
        match = info.function_at(link)
        if match is not None and match.low == link:
            return self._match_place(module, info, "", match)
        # libc's __strlen_evex, its debug file's symbol only: an assembler function, entered
        # at its start, named by its DWARF symbol
        place = self._source.location_of(target)
        die = self._source.function_die(target)
        found = self._source.debug_symbol(target)
        shown = _function_name(die) if die is not None else None
        return replace(place, function=shown or (found[1].name if found is not None else place.function))

    def _symbol_name(self, module: Module, info: DebugInfo, name: str, low: int, address: int) -> str | None:
        """gdb's name of a place of C code `break NAME` found (its location's symbol): the
        function whose DWARF symbol is called NAME (linkage name, else DW_AT_name), else,
        found by an ELF symbol (linespec.c minsym_found), the function, inlined or not,
        holding the place (find_function_start_sal): `break sigaction` is libc's
        `__GI___sigaction`, ld.so's `__sigaction`. None: the ELF symbol's name stands.
        Looked up only where an ELF name may be another than the DWARF one: a module with
        a separate debug file (glibc's hidden `__GI_` names), or several names at `low`."""
        image = self._source.symbols.image_of(module.path)
        if info.debug_file == module.path and (image is None or not image.shared_by_functions(low)):
            return None
        die = self._source.function_die(address)
        named = c_function_name(die) if die is not None else None
        if named is None or named == name:
            return named
        chain = self._source.inline_chain_at(address)
        return _function_name(chain[-1]) if chain else named

    def _symbol_places(self, name: str, found: list[CodeLocation], program_only: bool) -> list[CodeLocation]:
        """gdb's minimal symbols of `name` (linespec.c search_minsyms_for_name): every
        module's function symbol so named, its own table's or its debug file's (ld.so's
        `_start`), as a function without line info; none whose function holds a place
        found already (the function its debug info names: a copy of the same place). And
        a module's PLT stub of `name` (its trampoline symbol, `<strlen@plt>`) unless some
        other symbol of `name` is global or weak (the function it calls: libc's strlen, not
        ld.so's local one) or another module's stub, as search_minsyms_for_name keeps them."""
        places, exported = self._cxx_places(name, found, program_only)
        searched = self._searched_images(program_only)
        for module, image in searched:
            symbol, own = self._module_symbol(module, image, name)
            if symbol is None:
                continue
            exported = exported or symbol.binding != "local"
            low = symbol.address + module.base
            if _holds_a_place(low, symbol, (*found, *places)):
                continue
            place = self._source.location_of(self._past_frame_setup(low))
            info = self._source.debug_info(module) if place.source is not None else None
            shown = self._symbol_name(module, info, name, low, place.address) if info is not None else None
            if shown is not None:
                places.append(replace(place, function=shown))
            else:  # (one only the debug file names is shown by that name, as gdb's minimal symbol)
                places.append(place if own and place.function else self._debug_file_location(place.address, name))
        if exported:  # (a program's own function: no stub to look for)
            return places
        stubs = [(m, s) for m, image in searched if (s := self._module_symbol(m, image, f"{name}@plt")[0])]
        if len(stubs) == 1:
            places.append(self._source.location_of(stubs[0][1].address + stubs[0][0].base))
        return places

    def _cxx_places(self, name: str, found: list[CodeLocation], program_only: bool) -> tuple[list[CodeLocation], bool]:
        """gdb's minimal symbols of C++ functions that `name` matches by their demangled
        names (cxx_minimal.py: `break flush` at libstdc++'s methods and `...@plt` stubs),
        past their frame setup, each by its demangled name; none whose symbol holds a
        place found already (its function's, found by its debug info) or at a place
        another gives. And whether one is global or weak (a stub's trampoline symbol of
        the name is then left out, as search_minsyms_for_name does)."""
        places: list[CodeLocation] = []
        exported = False
        searched = self._searched_images(program_only)
        matched = [(m, s, shown) for m, image in searched for s, shown in self._cxx_symbols(m, image, name)]
        if not matched and not found:  # nothing is named through a typedef: look for one only then
            query = self._typedef_scope_named(name)
            if query != name:
                matched = [(m, s, shown) for m, image in searched for s, shown in self._cxx_symbols(m, image, query)]
        for module, symbol, shown in matched:
            exported = exported or symbol.binding != "local"
            low = symbol.address + module.base
            if _holds_a_place(low, symbol, (*found, *places)):
                continue
            place = self._source.location_of(self._past_frame_setup(low))
            if all(place.address != other.address for other in (*found, *places)):
                places.append(place if place.source is not None else replace(place, function=shown))
        return places, exported

    def _searched_images(self, program_only: bool) -> list[tuple[Module, ElfImage]]:
        """Each module whose symbols `break` searches, with its image: the program's alone
        before `run` (gdb has read no library's symbols, ld.so's neither)."""
        modules = self._source.symbols.modules()
        found = [(m, self._source.symbols.image_of(m.path)) for m in modules if m.is_main or not program_only]
        return [(module, image) for module, image in found if image is not None]

    def _typedef_scope_named(self, name: str) -> str:
        """`name` with a scope that some module's DWARF defines as a typedef replaced by the
        type it names, as gdb reads a name (cp_canonicalize_string_no_typedefs):
        `std::ostream::flush` is `std::basic_ostream<char, std::char_traits<char> >::flush`.
        Else `name` itself."""
        key, params = normalize_query(name)
        parts = split_qualified(key)
        if len(parts) < 2:
            return name
        found: Type | None = self._typedef_named("::".join(parts[:-1]))
        if found is None:
            return name
        while isinstance(found, TypedefType):
            found = found.target
        return f"{found}::{parts[-1]}{params or ''}"

    def _cxx_symbols(self, module: Module, image: ElfImage, name: str) -> list[tuple[ElfSymbol, str]]:
        """cxx_functions_named, remembered by module and name as _module_symbol's."""
        key = (module.path, module.base, name)
        known = self._cxx_named.get(key)
        if known is None or known[0] is not image:
            known = (image, cxx_functions_named(image, name, self._source.demangler))
            if len(self._cxx_named) >= _FUNCTION_PLACES:
                self._cxx_named.pop(next(iter(self._cxx_named)))
            self._cxx_named[key] = known
        return known[1]

    def _module_symbol(self, module: Module, image: ElfImage, name: str) -> tuple[ElfSymbol | None, bool]:
        """_code_symbol, remembered (a stub's, `NAME@plt`, from the module's own table)."""
        key = (module.path, module.base, name)
        known = self._code_symbols.get(key)
        if known is None or known[0] is not image:
            name = self._linkage_in(module, name)
            if name.endswith("@plt"):
                stub = image.find_symbol(name)
                known = (image, stub if stub is not None and stub.kind == "func" else None, True)
            else:
                known = (image, *self._code_symbol(module, image, name))
            if len(self._code_symbols) >= _FUNCTION_PLACES:
                self._code_symbols.pop(next(iter(self._code_symbols)))
            self._code_symbols[key] = known
        return known[1], known[2]

    def _code_symbol(self, module: Module, image: ElfImage, name: str) -> tuple[ElfSymbol | None, bool]:
        """(the module's code symbol called `name` or None, whether its own table's)."""
        symbol = image.find_symbol(name)
        if symbol is not None and _in_code(image, symbol):
            return symbol, True
        symbol = debug_file_symbol(self._source, module, name)
        return (symbol, False) if symbol is not None and _in_code(image, symbol) else (None, False)

    def function_symbol(self, name: str, program_only: bool = False) -> int | None:
        """gdb's lookup_minimal_symbol for a function without debug info: a global one in
        load order, else a local one, else the PLT stub that calls it (its trampoline
        symbol, `NAME@plt`); the runtime address, None for no function of that name.
        `program_only`: before `run` (gdb has read the program's symbols alone)."""
        found: dict[str, int] = {}
        for module in self._source.symbols.modules():
            if program_only and not module.is_main:
                continue
            image = self._source.symbols.image_of(module.path)
            for wanted in (name, f"{name}@plt"):
                symbol = image.find_symbol(wanted) if image is not None else None
                if symbol is None or symbol.kind != "func":
                    continue
                rank = "trampoline" if wanted != name else "global" if symbol.binding != "local" else "local"
                found.setdefault(rank, symbol.address + module.base)
        if "global" not in found and "local" not in found:  # the debug files' local names:
            # the last module's, as gdb's found_minimal_symbols::maybe_collect keeps
            local = debug_file_symbols(self._source, name, program_only=program_only)
            if local:
                found["local"] = local[-1]
        return next((found[rank] for rank in ("global", "local", "trampoline") if rank in found), None)

    def _debug_file_location(self, address: int, name: str) -> CodeLocation:
        """A place only a debug file's symbol names: by that name (the module's own
        table would name the function before it)."""
        module = self._source.symbols.module_at(address)
        return CodeLocation(address, name, self._source.position(address), module.path if module else None)

    def _past_frame_setup(self, address: int) -> int:
        """A function without line info, as gdb's minimal symbols: past its `push %rbp;
        mov %rsp,%rbp` (and endbr64) when it starts with them, else its entry."""
        module = self._source.symbols.module_at(address)
        image = self._source.symbols.image_of(module.path) if module is not None else None
        hit = image.symbol_at(address - module.base) if image and module else None
        if module is None or image is None or hit is None or hit[0].kind != "func" or hit[1] != 0:
            return address
        try:
            code = ElfSections(image.path).read_address(address - module.base, 64)  # (a `target:` file's copy)
        except (AliceError, OSError) as error:
            log.debug("no code of %s at %#x: %s", module.path, address, error)
            return address
        length = frame_setup_length(code)
        return address if length is None else address + length

    def _line_block(self, module: Module, link: int) -> int:
        """gdb's block of link-time `link` (an inlined copy, a lexical block declaring
        something), 0: the function's own: a line binds once in each."""
        return self._source.block_at(link + module.base)

    def _inline_finder(self, module: Module) -> InlineFinder | None:
        """Made only when the index's cache has no answer for a name: opening a module's
        DWARF (libc's is compressed) costs more than the whole lookup."""
        if module.path not in self._inline_finders:
            symbols = self._source.module_symbols(module)
            self._inline_finders[module.path] = InlineFinder(symbols.units) if symbols else None
        return self._inline_finders[module.path]

    def _inlined_copies(self, module: Module, info: DebugInfo, name: str) -> list[CodeLocation]:
        """`break NAME` also binds to every copy of NAME inlined into other functions."""

        found = []
        for site in self._inline_sites(module, info, name):
            link = breakpoint_address(info, site)
            row = info.location_at(link)
            source = SourcePosition(row.file, row.line) if row is not None else None
            address = link + module.base
            found.append(CodeLocation(address, self._inline_copy_name(site, address), source, module.path))
        return found

    def _inline_copy_name(self, site: InlineSite, address: int) -> str:
        """gdb's name of a place `break NAME` found in an inlined copy: in C++, the copy's
        print name with its parameters (`measure(geo::Shape*, int)`), as a line's place
        there is named (shown_function_name); elsewhere the site's own name (the same),
        with no inline chain read (only the unit's language)."""
        if self._source.function_die(address, cplus_only=True) is None:
            return site.name
        leaf = site.name.rsplit("::", 1)[-1]
        for die in reversed(self._source.inline_chain_at(address)):  # the innermost first
            if die_name(die) == leaf:
                return shown_function_name(die) or site.name
        return site.name

    def _inline_sites(self, module: Module, info: DebugInfo, name: str) -> list[InlineSite]:
        """inline_sites; while many names are set together (rbreak), a name whose answer
        is not remembered yet takes it from one walk of the module's units (inlinemap.py),
        remembered as inline_sites would."""
        sites = self._from_one_walk(module, info, "inline", name, lambda walk: walk.sites(name),
                                    lambda s: (s.name, s.entry, list(s.ranges)))  # fmt: skip
        return inline_sites(info, partial(self._inline_finder, module), name) if sites is None else sites

    def _defined_functions(self, module: Module, info: DebugInfo, name: str) -> list[Definition]:
        """defined_functions; while many names are set together, from the one walk as
        _inline_sites (the ld.so of a program: each of its 5,400 names searched for)."""
        found = self._from_one_walk(module, info, "defined", name, lambda walk: walk.definitions(name), list)
        return defined_functions(info, partial(self._inline_finder, module), name) if found is None else found

    def _from_one_walk(self, module: Module, info: DebugInfo, kind: str, name: str,
                       answer: Callable[[InlineMap], list[_Answer]],
                       stored: Callable[[_Answer], object]) -> list[_Answer] | None:  # fmt: skip
        """`answer` from the module's one walk, remembered as `kind` for the name (each
        entry as `stored`), while rbreak sets many names and none is remembered yet; None:
        the name's own search answers."""
        if not inlinemap.wanted():
            return None
        key, _params = normalize_query(name)
        if not key or isinstance(info.remembered(kind, key), list):
            return None
        walk = self._inline_map(module, info)
        if walk is None:
            return None
        found = answer(walk)
        info.remember(kind, key, [stored(entry) for entry in found])
        return found

    def _inline_map(self, module: Module, info: DebugInfo) -> InlineMap | None:
        held = self._inline_maps.get(module.path)
        if held is None or held[0] is not info:

            def name_of(unit: int, offset: int, spaces: tuple[int, ...]) -> tuple[str, str] | None:
                finder = self._inline_finder(module)  # pyelftools: C++'s qualified names
                named = inlinemap.names_by(finder.units) if finder else None
                return named(unit, offset, spaces) if named else None

            built = inlinemap.build(info.sections, _lto_units(info), name_of)
            held = self._inline_maps[module.path] = (info, built)
        return held[1]


def _holds_a_place(low: int, symbol: ElfSymbol, places: tuple[CodeLocation, ...]) -> bool:
    """Whether the symbol's bytes, from its runtime address `low`, hold one of `places`."""
    return any(low <= place.address < low + max(symbol.size, 1) for place in places)


def _in_code(image: ElfImage, symbol: ElfSymbol) -> bool:
    """gdb's text minimal symbol: a function, or a label of no type in code (ld.so's
    `_start`, an assembly entry)."""
    return symbol.kind == "func" or (symbol.kind == "other" and image.is_executable_address(symbol.address))


def _assembler(die: DIE) -> bool:
    """Whether `die` is of an assembler unit (glibc's strlen-sse2.S: named by its DW_AT_name)."""
    return bool(attr_value(die.cu.get_top_DIE(), "DW_AT_language") == _DW_LANG_MIPS_ASSEMBLER)


def _best_lines(found: list[tuple[int, CodeLocation]]) -> list[CodeLocation]:
    """gdb's choice across every file of that name (linespec.c): where some file has code
    at the line asked, its places alone; else the nearest later line any file has. So a
    library's own loop.c, with code from line 285 on, gives `break loop.c:6` nothing when
    the program's loop.c has code at line 6."""
    if not found:
        return []
    best = min(line for line, _place in found)
    return [place for line, place in found if line == best]


def call_site_position(info: DebugInfo | None, die: DIE) -> SourcePosition | None:
    """Where an inlined copy was called from (DW_AT_call_file / line / column)."""
    number = attr_value(die, "DW_AT_call_file")
    line = attr_value(die, "DW_AT_call_line")
    if info is None or not isinstance(number, int) or not isinstance(line, int):
        return None
    path = info.file_path(die.cu.cu_offset, number)
    column = attr_value(die, "DW_AT_call_column")
    return SourcePosition(path, line, column if isinstance(column, int) else 0) if path else None


def with_symtab(source: SourcePosition | None, info: DebugInfo, link: int) -> SourcePosition | None:
    """`source` with gdb's name for its file in the symtab of the unit at link-time `link`,
    as a breakpoint's message names it: asked by address, one unit's line header is read,
    where a name asked by path (source_name) decodes every unit's (140 ms at 2,200 units)."""
    symtab = info.symtab_name_at(link, source.path) if source is not None else None
    if source is None or symtab is None:
        return source
    return replace(source, symtab=symtab.filename, symtab_fullname=symtab.missing_fullname)


def _function_name(die: DIE) -> str | None:
    """A function's name as gdb shows a place in it: its C symbol's (c_function_name),
    else its DW_AT_name (an inlined call's, an assembler unit's)."""
    return c_function_name(die) or die_name(die)
