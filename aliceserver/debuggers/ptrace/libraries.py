"""Which ELF images a process has mapped, kept current as the dynamic loader works.

At exec (or attach) we know the executable from /proc/PID/exe and its load bias from the
auxiliary vector (AT_PHDR), and the dynamic loader from AT_BASE. The loader calls
`_dl_debug_state` (r_debug.r_brk) after every change of its link map; the engine keeps an
internal breakpoint there and calls `sync()` on each hit.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

from aliceserver.debuggers.librarypaths import LibraryPaths
from aliceserver.debuggers.model import Module
from aliceserver.debuggers.symbols import auxv as auxv_module
from aliceserver.debuggers.symbols.elf import ElfCache
from aliceserver.debuggers.symbols.linkmap import (
    LinkMapEntry,
    ReadMemory,
    find_r_debug_from_dynamic,
    read_link_map,
    read_r_debug,
)
from aliceserver.debuggers.symbols.process import ProcessSymbols
from aliceserver.errors import AliceError, TargetError

if TYPE_CHECKING:  # (a remote stub's list, read with an XML parser no live session needs)
    from aliceserver.debuggers.remote.libraries import ListedLibrary, ListedPlace

log = logging.getLogger(__name__)


# gdb's (svr4's enable_break), where the loader is not found or names no _dl_debug_state
NO_LOADER_BREAKPOINT = ("Unable to find dynamic linker breakpoint function.\n"
                        "GDB will be unable to debug shared library initializers\n"
                        "and track explicitly loaded dynamic code.")  # fmt: skip


class FileMapping(NamedTuple):
    """[start, end) of the address space maps the file `path` (a maps line, an NT_FILE entry)."""

    start: int
    end: int
    path: str


class LibraryTracker:
    def __init__(self, symbols: ProcessSymbols, cache: ElfCache, read: ReadMemory,
                 paths: LibraryPaths | None = None) -> None:  # fmt: skip
        self.symbols = symbols
        self.paths = paths if paths is not None else LibraryPaths()
        self._local_files = True  # the target's files are this machine's
        self._found: dict[str, str] = {}  # a library's name -> the file read for it
        self._target_names: dict[str, str] = {}  # and back, where they differ
        self._found_version = -1
        symbols.target_name = lambda path: self._target_names.get(path, path)
        self._warnings: list[str] = []  # gdb's, without "warning: ", to tell after the libraries
        self.loader_unseen = False
        self._cache = cache
        self._read = read
        self._r_debug: int | None = None
        self._dynamic: int | None = None  # runtime address of the executable's PT_DYNAMIC
        self._loader_r_debug: int | None = None  # ld.so's own `_r_debug`, the fallback
        self.main: Module | None = None
        self.entry: int | None = None
        self._pid = 0
        self._opened: dict[tuple[str, int], str] = {}  # (relative l_name, l_ld) -> file
        # A core's file mappings (NT_FILE); None: the live process's, in /proc/PID/maps
        self._file_mappings: Sequence[FileMapping] | None = None

    def start(self, pid: int, auxv: Mapping[int, int] | None = None, exe: str | None = None,
              file_mappings: Sequence[FileMapping] | None = None, *,
              local_files: bool = True, live: bool = True,
              with_loader: bool = True) -> tuple[list[Module], int | None]:  # fmt: skip
        """Load the executable and the dynamic loader; return them and r_brk if known.
        `auxv`, `exe` and `file_mappings` default to the live process's (a core file gives
        its own: its pid may name another process by now). `local_files`: the target's
        files are this machine's (False: a stub that transfers them). `live`: a process
        runs (not a core), whose libraries are followed from the loader's breakpoint.
        `with_loader`: False where a stub lists the libraries itself (gdb's solib-target knows
        no PT_INTERP: the loader is one of the libraries listed)."""
        self.symbols.clear()
        self._warnings.clear()
        self._loader_r_debug = None
        self.loader_unseen = False  # a dynamic program whose loader's breakpoint is not known
        self._local_files = local_files
        self._found.clear()
        self._target_names.clear()
        self._r_debug = None
        self._pid = pid
        self._opened.clear()
        self._file_mappings = file_mappings
        loaded: list[Module] = []
        auxv = auxv_module.read_auxv(pid) if auxv is None else auxv
        exe = os.readlink(f"/proc/{pid}/exe") if exe is None else exe
        bias = 0
        image = self._cache.get(exe)
        phdr = auxv.get(auxv_module.AT_PHDR)
        if image.is_pie and phdr is not None and image.phdr_vaddr is not None:
            bias = phdr - image.phdr_vaddr
        self.main = self.symbols.set_main(exe, bias)
        loaded.append(self.main)
        self.entry = auxv.get(auxv_module.AT_ENTRY)
        if image.dynamic_vaddr is not None:
            self._dynamic = image.dynamic_vaddr + bias
        r_brk: int | None = None
        loader_base = auxv.get(auxv_module.AT_BASE, 0)
        if loader_base and image.interp and with_loader:
            interp = self.library_file(image.interp)
            loader = self.symbols.add_module(interp, loader_base)
            if loader is not None:
                loaded.append(loader)
                r_brk = self._loader_symbol(interp, loader_base, "_dl_debug_state")
                self._loader_r_debug = self._loader_symbol(interp, loader_base, "_r_debug")
            self.loader_unseen = r_brk is None and live
            if self.loader_unseen:
                self._warnings.append(NO_LOADER_BREAKPOINT)
        return self._named(loaded), r_brk

    def _loader_symbol(self, path: str, base: int, name: str) -> int | None:
        image = self.symbols.image_of(path)
        symbol = image.find_symbol(name) if image is not None else None
        return symbol.address + base if symbol is not None else None

    def r_brk_from_memory(self) -> int | None:
        """r_brk of an already initialised r_debug (after attach)."""
        address = self._find_r_debug()
        if address is None:
            return None
        try:
            brk = read_r_debug(self._read, address).brk
        except TargetError as error:  # a stub that cannot read it: the loader's symbol serves
            log.debug("reading r_debug: %s", error)
            return None
        return brk or None

    def _find_r_debug(self) -> int | None:
        if self._r_debug is not None:
            return self._r_debug
        try:
            if self._dynamic is not None:
                self._r_debug = find_r_debug_from_dynamic(self._read, self._dynamic)
        except TargetError as error:
            log.debug("no DT_DEBUG: %s", error)
        if self._r_debug is None:
            self._r_debug = self._loader_r_debug
        return self._r_debug

    def sync(self, *, any_state: bool = False) -> tuple[list[Module], list[Module]]:
        """Bring the module list in line with the loader's link map (`any_state`: read it
        while the loader changes it too, as gdb over a stub takes the stub's list then)."""
        address = self._find_r_debug()
        if address is None:
            return [], []
        try:
            r_debug = read_r_debug(self._read, address)
            if (r_debug.state != "consistent" and not any_state) or not r_debug.map_addr:
                return [], []
            entries = read_link_map(self._read, r_debug.map_addr)
        except TargetError as error:
            log.debug("reading the link map: %s", error)
            return [], []
        return self.sync_entries(entries)

    def sync_entries(self, entries: Sequence[LinkMapEntry]) -> tuple[list[Module], list[Module]]:
        """Bring the module list in line with link map entries (the main program's first),
        read from memory or given by a stub (qXfer:libraries-svr4:read)."""
        loaded, unloaded = self.symbols.sync_link_map([self._found_file(self._opened_file(entry)) for entry in entries])
        self._warn_missing([module for module in loaded if self.symbols.is_missing(module)])
        return self._named(loaded), self._named(unloaded)

    def sync_listed(self, listed: Sequence[ListedLibrary]) -> tuple[list[Module], list[Module]]:
        """Bring the module list in line with the list a stub gives (qXfer:libraries:read)."""
        from aliceserver.debuggers.remote.libraries import listed_place

        entries = [LinkMapEntry(0, "", 0)]  # the main program's place, as in a link map
        places: dict[str, ListedPlace] = {}
        for library in listed:
            path = self.library_file(library.name)
            try:
                image = self._cache.get(path)
            except (AliceError, OSError):
                image = None  # found nowhere: listed at the address given, without symbols
            place = places[path] = listed_place(library, image)
            self._warnings.extend(place.warnings)
            entries.append(LinkMapEntry(place.bias, path, 0))
        loaded, unloaded = self.symbols.sync_link_map(entries)
        self._warn_missing([module for module in loaded if self.symbols.is_missing(module)])
        # gdb's solib-target shows the segments' (sections') range, where svr4 shows .text's
        return [replace(module, text=self._listed_range(module, places.get(module.path)))
                for module in self._named(loaded)], self._named(unloaded)  # fmt: skip

    @staticmethod
    def _listed_range(module: Module, place: ListedPlace | None) -> tuple[int, int] | None:
        if place is None:
            return None
        return module.text if place.text_range else place.range

    def _warn_missing(self, missing: list[Module]) -> None:
        """gdb's update_solib_list: one warning for the libraries of one change found nowhere."""
        if len(missing) == 1:
            self._warnings.append(f"Could not load shared library symbols for {missing[0].path}.\n"
                      'Do you need "set solib-search-path" or "set sysroot"?')  # fmt: skip
        elif missing:
            self._warnings.append(f"Could not load shared library symbols for {len(missing)} libraries, e.g. {missing[0].path}.\n"
                      'Use the "info sharedlibrary" command to see the complete listing.\n'
                      'Do you need "set solib-search-path" or "set sysroot"?')  # fmt: skip

    def take_warnings(self) -> list[str]:
        """What the last changes of the library list warn of (gdb's words, without
        "warning: "), told once the libraries are announced, as gdb's are."""
        warnings, self._warnings = self._warnings, []
        return warnings

    def _named(self, modules: list[Module]) -> list[Module]:
        """`modules` with the names the target gives them, where the sysroot made them others."""
        return [replace(module, target_name=self._target_names[module.path])
                if module.path in self._target_names else module for module in modules]  # fmt: skip

    def library_file(self, name: str) -> str:
        """The file read for the library the target names `name` (the sysroot and search
        path applied, as gdb names the library after); where none is found, its path under
        the sysroot, which is read no more than gdb reads it (no symbols)."""
        if self._found_version != self.paths.version:
            self._found.clear()  # (a module keeps its target name: it names the same file)
            self._found_version = self.paths.version
        found = self._found.get(name)
        if found is None:
            local = self._local_files
            found = self.paths.find(name, local_target=local) or self.paths.joined(name, local_target=local)
            self._found[name] = found
            if found != name:
                self._target_names[found] = name
        return found

    def _found_file(self, entry: LinkMapEntry) -> LinkMapEntry:
        if not entry.name:
            return entry
        path = self.library_file(entry.name)
        return entry if path == entry.name else replace(entry, name=path)

    def _opened_file(self, entry: LinkMapEntry) -> LinkMapEntry:
        """`entry` naming the file the loader opened: a relative l_name (`-L. -lfoo` run
        with LD_LIBRARY_PATH=., an rpath of `./`) is relative to the program's working
        directory when it loaded, not to ours; the mapping holding its dynamic section
        names the file absolutely. The name stays as the loader gave it when it names that
        file from here too (gdb shows it so)."""
        if not entry.name or entry.name.startswith("/"):
            return entry
        key = (entry.name, entry.ld)
        if key not in self._opened:
            mappings = self._file_mappings if self._file_mappings is not None else _proc_maps(self._pid)
            self._opened[key] = _mapped_file(mappings, entry.ld, entry.name)
        path = self._opened[key]
        return entry if path == entry.name else replace(entry, name=path)


def _proc_maps(pid: int) -> list[FileMapping]:
    """The live process's file mappings, from /proc/PID/maps (none when it is gone)."""
    try:
        with open(f"/proc/{pid}/maps", encoding="utf-8", errors="surrogateescape") as maps:
            lines = maps.read().splitlines()
    except OSError as error:
        log.debug("no maps of process %d: %s", pid, error)
        return []
    found = []
    for line in lines:
        fields = line.split(None, 5)
        if len(fields) == 6:
            low, high = (int(part, 16) for part in fields[0].split("-"))
            found.append(FileMapping(low, high, fields[5]))
    return found


def _mapped_file(mappings: Iterable[FileMapping], address: int, name: str) -> str:
    """The absolute path of the file mapped at `address`, else `name` (unmapped, the vDSO,
    a deleted file); `name` too when it is that same file from our directory."""
    for mapping in mappings:
        if not mapping.path.startswith("/") or mapping.path.endswith(" (deleted)"):
            continue
        if mapping.start <= address < mapping.end:
            path = mapping.path
            try:
                return name if os.path.samefile(name, path) else path
            except OSError:
                return path
    return name
