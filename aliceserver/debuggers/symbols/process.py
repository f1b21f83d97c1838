"""The modules mapped in one process and symbol lookups over all of them (runtime addresses)."""

from __future__ import annotations

import errno
import logging
import threading
from bisect import bisect_right
from collections.abc import Callable

from aliceserver.debuggers.model import Module, SymbolLocation
from aliceserver.debuggers.symbols.elf import ElfCache, ElfImage
from aliceserver.debuggers.symbols.linkmap import LinkMapEntry
from aliceserver.errors import AliceError, TargetError

log = logging.getLogger(__name__)


def _is_vdso(path: str) -> bool:
    # The kernel's vDSO appears in the link map by soname only; it is no file on disk.
    return path.startswith("linux-vdso") or path.startswith("linux-gate")


class ProcessSymbols:
    """The main program and its shared libraries, in load order (main first).

    Methods may be called from any thread; a lock keeps the module list consistent.
    """

    def __init__(self, cache: ElfCache | None = None) -> None:
        self._cache = cache if cache is not None else ElfCache()
        self._lock = threading.RLock()
        self._modules: list[tuple[Module, ElfImage]] = []  # main first, then load order
        self._by_path: dict[str, tuple[Module, ElfImage]] = {}
        self._ranges: list[tuple[int, int, Module, ElfImage]] = []  # sorted by low
        self._lows: list[int] = []
        self._failed: set[tuple[str, int]] = set()  # unloadable files, not retried on sync
        self._nodes: dict[str, int] = {}  # library path -> its link_map's address
        # Libraries still mapped whose symbols were dropped (gdb's `nosharedlibrary`): no
        # symbol lookup sees them until their symbols are read again; the unwinder still
        # reads their call frame information (mapped_module_at, mapped_image_of).
        self._unread: dict[str, tuple[Module, ElfImage]] = {}
        self._link_order: list[str] = []  # the libraries as the loader's list has them
        # Libraries the loader lists whose file is found nowhere (the sysroot, the search
        # path): gdb lists them, symbols not read, at no addresses
        self._missing: dict[str, Module] = {}  # by the file path looked for
        self.target_name: Callable[[str], str] = lambda path: path  # (LibraryTracker's)
        # Bumped when an address may be looked up differently (a module mapped, moved or
        # dropped): what was looked up before stays good while it is the same.
        self.generation = 0

    # --- the module list --------------------------------------------------------------
    def set_main(self, path: str, bias: int) -> Module:
        """Make `path` the main program (replacing any previous one). TargetError if unreadable."""
        image = self._cache.get(path)
        module = _module(path, bias, image, is_main=True)
        with self._lock:
            old = next((m for m, _ in self._modules if m.is_main), None)
            if old is not None:
                self._drop(old.path)
            self._drop(path)
            self._modules.insert(0, (module, image))
            self._by_path[path] = (module, image)
            self._reindex()
        return module

    def add_module(self, path: str, bias: int) -> Module | None:
        """Add a shared library; None (logged) when its file cannot be loaded or is the vDSO."""
        if not path or _is_vdso(path):
            return None
        try:
            image = self._cache.get(path)
        except AliceError as exc:
            log.debug("no symbols for %s: %s", path, exc)
            return None
        module = _module(path, bias, image, is_main=False)
        with self._lock:
            self._drop(path)
            self._modules.append((module, image))
            self._by_path[path] = (module, image)
            self._reindex()
        return module

    def remove_module(self, path: str) -> Module | None:
        with self._lock:
            removed = self._drop(path)
            if removed is not None:
                self._reindex()
            return removed

    def clear(self) -> None:
        with self._lock:
            self._modules.clear()
            self._by_path.clear()
            self._failed.clear()
            self._nodes.clear()
            self._unread.clear()
            self._missing.clear()
            self._link_order = []
            self._reindex()

    def drop_library_symbols(self) -> list[Module]:
        """gdb's `nosharedlibrary`: every library leaves the lookups (the main program
        stays); they are remembered as mapped, to be read again. Returns them in the
        loader's order (gdb lists them so from then on)."""
        with self._lock:
            order = {path: index for index, path in enumerate(self._link_order)}
            dropped = [pair for pair in self._modules if not pair[0].is_main]
            dropped.sort(key=lambda pair: order.get(pair[0].path, len(order)))
            for module, image in dropped:
                self._drop(module.path)
                self._unread[module.path] = (module, image)
            self._reindex()
        return [module for module, _ in dropped]

    def order_as_linked(self) -> None:
        """List the libraries in the loader's order (the loader itself last): a core's, as
        gdb reads them all at once from its link map (live, they come in load order)."""
        with self._lock:
            order = {path: index for index, path in enumerate(self._link_order)}
            main = [pair for pair in self._modules if pair[0].is_main]
            libraries = [pair for pair in self._modules if not pair[0].is_main]
            libraries.sort(key=lambda pair: order.get(pair[0].path, len(order)))
            self._modules = main + libraries

    def read_library_symbols(self, paths: list[str] | None = None) -> list[Module]:
        """gdb's `sharedlibrary`: the libraries at `paths` (None: all) whose symbols were
        dropped join the lookups again, at the addresses they are mapped at. Returns them."""
        with self._lock:
            wanted = list(self._unread) if paths is None else [p for p in paths if p in self._unread]
            restored = []
            for path in wanted:
                module, _image = self._unread.pop(path)
                self.generation += 1
                if self.add_module(path, module.base) is not None:
                    restored.append(module)
        return restored

    def mapped_modules(self) -> list[Module]:
        """Every module the process maps: those with symbols, then those without."""
        with self._lock:
            return [*(m for m, _ in (*self._modules, *self._unread.values())), *self._missing.values()]

    def unread_libraries(self) -> list[Module]:
        """The mapped libraries whose symbols are not read (dropped, or no file found)."""
        with self._lock:
            return [*(module for module, _ in self._unread.values()), *self._missing.values()]

    def is_missing(self, module: Module) -> bool:
        """Whether `module` is a library listed without a file (gdb warns of it)."""
        with self._lock:
            return any(known is module for known in self._missing.values())

    def mapped_module_at(self, address: int) -> Module | None:
        """The module mapping `address`, its symbols read or not (for unwinding)."""
        found = self._mapping_at(address)
        return found[0] if found is not None else self._unread_at(address)

    def mapped_image_of(self, module_path: str) -> ElfImage | None:
        """The image of a mapped module, its symbols read or not (its CFI, for unwinding)."""
        with self._lock:
            found = self._by_path.get(module_path) or self._unread.get(module_path)
        return found[1] if found else None

    def modules(self) -> list[Module]:
        with self._lock:
            return [m for m, _ in self._modules]

    def main(self) -> Module | None:
        with self._lock:
            return next((m for m, _ in self._modules if m.is_main), None)

    def image_of(self, module_path: str) -> ElfImage | None:
        with self._lock:
            found = self._by_path.get(module_path)
        return found[1] if found else None

    def link_map_node(self, path: str) -> int | None:
        """The address of the loader's link_map of the library `path` (None: not known)."""
        with self._lock:
            return self._nodes.get(path)

    def module_at(self, address: int) -> Module | None:
        found = self._mapping_at(address)
        return found[0] if found else None

    def sync_link_map(self, entries: list[LinkMapEntry]) -> tuple[list[Module], list[Module]]:
        """Make the libraries match ld.so's list; returns (loaded, unloaded), main untouched.

        The first entry (empty name) is the main program and is skipped, like the vDSO.
        A library whose bias changed (unloaded and loaded again elsewhere) is in both lists.
        """
        wanted: dict[str, int] = {}
        for entry in entries[1:]:
            if entry.name and not _is_vdso(entry.name):
                wanted.setdefault(entry.name, entry.addr)
        with self._lock:
            self._nodes = {e.name: e.node for e in reversed(entries[1:]) if e.name and e.node}
            self._link_order = list(wanted)
        loaded: list[Module] = []
        unloaded: list[Module] = []
        with self._lock:
            main = self.main()
            for module, _image in list(self._modules):
                if module.is_main:
                    continue
                if wanted.get(module.path) != module.base:
                    self._drop(module.path)
                    unloaded.append(module)
            self._reindex()
            for module, _image in list(self._unread.values()):
                if wanted.get(module.path) != module.base:
                    del self._unread[module.path]
                    unloaded.append(module)
                    self.generation += 1
            for path, module in list(self._missing.items()):
                if wanted.get(path) != module.base:
                    del self._missing[path]
                    unloaded.append(module)
            for path, bias in wanted.items():
                if path in self._by_path or path in self._unread or path in self._missing:
                    continue
                if (main is not None and path == main.path) or (path, bias) in self._failed:
                    continue
                added = self.add_module(path, bias)
                if added is not None:
                    loaded.append(added)
                elif not self._file_exists(path):
                    # gdb names it as the target does (the file looked for is none)
                    self._missing[path] = added = Module(self.target_name(path), bias, 0, 0)
                    loaded.append(added)
                else:
                    self._failed.add((path, bias))
        return loaded, unloaded

    def _file_exists(self, path: str) -> bool:
        """False where no file is found for `path` (another failure: a file we cannot read)."""
        try:
            self._cache.get(path)
        except TargetError as error:
            return error.errno != errno.ENOENT
        except AliceError:
            return True
        return True

    # --- lookups -----------------------------------------------------------------------
    def lookup_address(self, address: int) -> SymbolLocation:
        """`name+offset` in the module mapping `address`; name None when no symbol is near."""
        found = self._mapping_at(address)
        if found is None:
            unread = self._unread_at(address)
            path = unread.path if unread is not None else None
            return SymbolLocation(address=address, name=None, offset=0, module=path)
        module, image = found
        hit = image.symbol_at(address - module.base)
        if hit is None:
            return SymbolLocation(address=address, name=None, offset=0, module=module.path)
        symbol, offset = hit
        return SymbolLocation(address=address, name=symbol.name, offset=offset, module=module.path)

    def lookup_name(self, name: str, main_only: bool = False) -> int | None:
        """Runtime address of `name`: the main program first, then libraries in load order
        (`main_only`: the main program's alone).

        A function with a size anywhere beats a sizeless or data symbol found earlier, so
        `puts` names libc's function rather than some alias or marker of the same name.
        """
        with self._lock:
            order = [pair for pair in self._modules if pair[0].is_main or not main_only]
        fallback: int | None = None
        for module, image in order:
            symbol = image.find_symbol(name)
            if symbol is None:
                continue
            address = symbol.address + module.base
            if symbol.kind == "func" and symbol.size > 0:
                return address
            if fallback is None:
                fallback = address
        return fallback

    # --- internals ---------------------------------------------------------------------
    def _mapping_at(self, address: int) -> tuple[Module, ElfImage] | None:
        with self._lock:
            ranges, lows = self._ranges, self._lows
        i = bisect_right(lows, address) - 1
        if i >= 0:
            low, high, module, image = ranges[i]
            if low <= address < high:
                return module, image
        return None

    def _unread_at(self, address: int) -> Module | None:
        """The library without symbols mapping `address` (frames still say `from` it)."""
        with self._lock:
            return next((m for m, _ in self._unread.values() if m.low <= address < m.high), None)

    def _drop(self, path: str) -> Module | None:
        found = self._by_path.pop(path, None)
        if found is None:
            return None
        self._modules = [pair for pair in self._modules if pair[0].path != path]
        return found[0]

    def _reindex(self) -> None:
        # New lists rather than edits, so a reader holding the old ones stays consistent.
        ranges = sorted(
            ((m.low, m.high, m, image) for m, image in self._modules), key=lambda r: r[0]
        )
        old = self._ranges
        same = len(ranges) == len(old) and all(
            new[2] is was[2] and new[3] is was[3] for new, was in zip(ranges, old, strict=True)
        )
        if not same:
            self.generation += 1
        self._ranges = ranges
        self._lows = [r[0] for r in ranges]


def _module(path: str, bias: int, image: ElfImage, *, is_main: bool) -> Module:
    return Module(
        path=path,
        base=bias,
        low=image.load_low + bias,
        high=image.load_high + bias,
        is_main=is_main,
        text=None if image.text_range is None else (image.text_range[0] + bias, image.text_range[1] + bias),
    )
