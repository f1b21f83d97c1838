"""One ELF image: headers, load segments and symbol lookups (link-time addresses)."""

from __future__ import annotations

import errno
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

from aliceserver.debuggers.symbols._elfread import ElfContents, read_elf
from aliceserver.debuggers.symbols.elfheaders import (
    PF_X,
    PT_DYNAMIC,
    PT_INTERP,
    PT_LOAD,
    PT_NOTE,
    PT_PHDR,
    SHF_ALLOC,
    SHF_TLS,
    SHT_DYNSYM,
    SHT_GNU_VERSYM,
    SHT_SYMTAB,
    Section,
    Segment,
)
from aliceserver.debuggers.symbols.plt import got_plt_symbols, plt_symbols
from aliceserver.debuggers.symbols.symtab import (
    ElfSymbol,
    Entry,
    PackedTable,
    SymbolTable,
    parse_symbols,
)
from aliceserver.errors import TargetError

if TYPE_CHECKING:  # symtab_pack.py: imported by an index's build (a warm start has none)
    from aliceserver.debuggers.symbols.symtab_pack import FunctionPart

__all__ = [
    "PF_X",
    "PT_DYNAMIC",
    "PT_INTERP",
    "PT_LOAD",
    "PT_NOTE",
    "PT_PHDR",
    "ElfCache",
    "ElfImage",
    "ElfSymbol",
    "Segment",
]

log = logging.getLogger(__name__)

TARGET_FILE = "target:"  # librarypaths.TARGET_PREFIX: a file the target holds


class ElfImage:
    """An ELF64 file, read once; the symbol tables are parsed on the first symbol query."""

    def __init__(self, path: str, contents: ElfContents) -> None:
        self.path: Final = path
        self.machine: Final = contents.machine
        self.little_endian: Final = contents.little_endian
        self.is_pie: Final = contents.elf_type == "ET_DYN"
        self.entry: Final = contents.entry
        self.build_id: Final = contents.build_id
        self.interp: Final = contents.interp
        self.segments: Final = contents.segments
        self.sections: Final[tuple[Section, ...]] = contents.sections  # CFI finds its sections here
        loads = [s for s in contents.segments if s.type == PT_LOAD]
        self.load_low: Final = min((s.vaddr for s in loads), default=0)
        self.load_high: Final = max((s.vaddr + s.memsz for s in loads), default=0)
        self.dynamic_vaddr: Final = next(
            (s.vaddr for s in contents.segments if s.type == PT_DYNAMIC), None
        )
        self.phdr_vaddr: Final = _phdr_vaddr(contents)
        self._exec_ranges = [(s.vaddr, s.vaddr + s.memsz) for s in loads if s.flags & PF_X]
        self._section_names = {s.index: s.name for s in contents.sections if s.flags & SHF_ALLOC}
        # link-time [start, end) of .text: gdb's `info sharedlibrary` From/To
        self.text_range: Final = next(
            ((s.addr, s.addr + s.size) for s in contents.sections if s.name == ".text"), None
        )
        self._contents: ElfContents | None = contents
        self._table: SymbolTable | None = None
        self._packed: PackedTable | None = None  # a cached table, unpacked on first use
        self._packed_addresses: bytes | None = None  # and its address index's addresses
        # A copy of the target's file (a stub's `target:`): how its other files are read
        # (its separate debug file under the target's debug directory)
        self.target_files: Callable[[str], str | None] | None = None
        self._lock = threading.Lock()

    @classmethod
    def load(cls, path: str) -> ElfImage:
        """Read `path`. TargetError for a missing, unreadable or non-ELF file."""
        return cls(path, read_elf(path))

    def __repr__(self) -> str:
        return f"ElfImage({self.path!r}, pie={self.is_pie}, build_id={self.build_id})"

    # --- symbols ------------------------------------------------------------------
    def symbols(self) -> Sequence[ElfSymbol]:
        """Every defined symbol of .symtab and .dynsym plus `name@plt` stubs, by address."""
        return self._symtab().symbols()

    def function_symbols(self) -> list[tuple[str, int, int]]:
        """(name, link address, size) of every function symbol, unordered."""
        return self._symtab().functions()

    def has_mangled_names(self) -> bool:
        """Whether some symbol's name is a mangled C++ one (`_Z...`)."""
        return self._symtab().has_mangled_names()

    def functions_containing(self, fragment: str) -> list[ElfSymbol]:
        """The function symbols (`name@plt` stubs too) whose names hold `fragment`."""
        return self._symtab().functions_containing(fragment)

    def find_symbol(self, name: str) -> ElfSymbol | None:
        """The symbol called `name` (version suffixes ignored), a global function first."""
        return self._symtab().find(name)

    def symbol_at(self, link_address: int) -> tuple[ElfSymbol, int] | None:
        """(symbol, offset) for the symbol containing `link_address` or a function just
        before it in the same section; None when nothing plausible is near."""
        return self._symtab().at(link_address)

    def section_symbol(self, link_address: int) -> tuple[ElfSymbol, int, str] | None:
        """(symbol, offset, section name) as gdb's `info symbol` finds them (SymbolTable.in_section)."""
        found = self._symtab().in_section(link_address)
        if found is None:
            return None
        symbol, offset, index = found
        return symbol, offset, self._section_names.get(index, "?")

    def shared_by_functions(self, link_address: int) -> bool:
        """Whether several function symbols start at `link_address` (see SymbolTable)."""
        return self._symtab().shared_by_functions(link_address)

    def packed_symbols(self) -> PackedTable:
        """The symbol table as plain containers, for the on-disk index."""
        fast = self.packed_name_part()
        return fast[0] if fast is not None else self._symtab().packed()

    def packed_name_part(self) -> tuple[PackedTable, FunctionPart] | None:
        """The packed symbol table and function list made from the section bytes when no
        table is parsed yet (symtab_pack.py: a fifth of the time), which the image then
        uses as a cached one; None: parsed already, or a file that module leaves alone."""
        with self._lock:
            if self._table is not None or self._contents is None:
                return None
            from aliceserver.debuggers.symbols import symtab_pack

            fast = symtab_pack.pack(self._contents)
            if fast is not None:
                self._packed, self._contents = fast[0], None
            return fast

    def adopt_symbols(self, packed: PackedTable, addresses: bytes | None = None) -> None:
        """Use `packed` (packed_symbols() of this same file, checked by is_packed_table;
        `addresses`, its symtab.packed_addresses) rather than parse the symbol table,
        unless that is done already."""
        with self._lock:
            if self._table is None:
                self._packed, self._packed_addresses = packed, addresses
                self._contents = None

    def is_executable_address(self, link_address: int) -> bool:
        return any(low <= link_address < high for low, high in self._exec_ranges)

    def _symtab(self) -> SymbolTable:
        table = self._table
        if table is not None:
            return table
        with self._lock:
            if self._table is None and self._packed is not None:
                self._table = SymbolTable.from_packed(self._packed, self._packed_addresses)
                self._packed = self._packed_addresses = None
            elif self._table is None:
                assert self._contents is not None
                self._table = _build_table(self._contents)
                self._contents = None  # the raw section bytes are no longer needed
            return self._table


def _phdr_vaddr(contents: ElfContents) -> int | None:
    for seg in contents.segments:
        if seg.type == PT_PHDR:
            return seg.vaddr
    # No PT_PHDR (static binaries): the headers are mapped by the load covering e_phoff.
    for seg in contents.segments:
        if seg.type == PT_LOAD and seg.offset <= contents.phoff < seg.offset + seg.filesz:
            return seg.vaddr + contents.phoff - seg.offset
    return None


def _build_table(contents: ElfContents) -> SymbolTable:
    sections = contents.sections
    raw = contents.raw
    versym = next((raw.get(s.index) for s in sections if s.type == SHT_GNU_VERSYM), None)
    entries: list[Entry] = []
    # .symtab first: it is the fuller table; .dynsym fills in what strip removed.
    for kind in (SHT_SYMTAB, SHT_DYNSYM):
        for sec in sections:
            data = raw.get(sec.index)
            if sec.type != kind or data is None:
                continue
            strtab = raw.get(sec.link, b"")
            entries.extend(
                parse_symbols(
                    data,
                    strtab,
                    versym if kind == SHT_DYNSYM else None,
                    little_endian=contents.little_endian,
                )
            )
    bounds = {
        s.index: (s.addr, s.addr + s.size)
        for s in sections
        if s.flags & SHF_ALLOC and not s.flags & SHF_TLS and s.size
    }
    synthetic: list[Entry] = []
    if contents.machine == "EM_X86_64" and contents.little_endian:
        synthetic = plt_symbols(sections, raw) + got_plt_symbols(sections, raw)
    elif contents.machine == "EM_AARCH64" and contents.little_endian:
        synthetic = got_plt_symbols(sections, raw)  # gdb reads .rela.plt whatever the CPU
    return SymbolTable(entries, bounds, synthetic)


class ElfCache:
    """Reuses ElfImages while their file is unchanged (same realpath, mtime and size).

    Owned by its caller (one per server or per session); safe to share between threads.
    """

    def __init__(self, capacity: int = 128) -> None:
        self._capacity = capacity
        self._images: OrderedDict[tuple[str, int, int], ElfImage] = OrderedDict()
        self._lock = threading.Lock()
        # A `target:PATH` (gdb's sysroot for the target's own files) -> this machine's
        # copy of it, None where the target has none; None: no such files are read
        self.target_files: Callable[[str], str | None] | None = None

    def get(self, path: str) -> ElfImage:
        """The image of `path` (`target:PATH` read from its copy), loaded or reused;
        TargetError as for ElfImage.load."""
        shown, path = path, self._local(path)
        real = os.path.realpath(path)
        try:
            st = os.stat(real)
        except OSError as exc:
            raise TargetError(
                f"cannot read {shown}: {exc.strerror or exc}", errno=exc.errno
            ) from exc
        key = (real, st.st_mtime_ns, st.st_size)
        with self._lock:
            image = self._images.get(key)
            if image is not None:
                self._images.move_to_end(key)
                return image
        image = ElfImage.load(path)  # outside the lock: loads of other files go on
        if shown.startswith(TARGET_FILE):
            image.target_files = self.target_files
        with self._lock:
            for old in [k for k in self._images if k[0] == real and k != key]:
                del self._images[old]  # an older version of a rebuilt file
            self._images[key] = image
            self._images.move_to_end(key)
            while len(self._images) > self._capacity:
                self._images.popitem(last=False)
        log.debug("loaded %s (%d cached)", path, len(self._images))
        return image

    def _local(self, path: str) -> str:
        if not path.startswith(TARGET_FILE):
            return path
        copy = self.target_files(path[len(TARGET_FILE) :]) if self.target_files is not None else None
        if copy is None:
            raise TargetError(f"cannot read {path}: No such file or directory", errno=errno.ENOENT)
        return copy

    def clear(self) -> None:
        with self._lock:
            self._images.clear()

    def __len__(self) -> int:
        return len(self._images)
