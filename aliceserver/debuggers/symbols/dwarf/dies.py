"""Lazy access to one image's DWARF units: a CU's DIEs are parsed only when a query needs it.

Addresses here are link-time addresses (runtime minus the module's load bias).
"""

from __future__ import annotations

import functools
import itertools
import logging
import os
import struct
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, TypeVar, cast

from elftools.common.exceptions import DWARFError, ELFError
from elftools.dwarf.compileunit import CompileUnit
from elftools.dwarf.die import DIE
from elftools.dwarf.dwarfinfo import DWARFInfo
from elftools.dwarf.typeunit import TypeUnit

from aliceserver.debuggers.symbols.dwarf.abbrevs import AbbrevCache
from aliceserver.debuggers.symbols.dwarf.callsitewalk import call_sites_under
from aliceserver.debuggers.symbols.dwarf.coderanges import (
    RawAranges,
    Scope,
    ScopeIndex,
    unit_offsets,
    unit_scopes,
)
from aliceserver.debuggers.symbols.dwarf.dieattrs import attr_value as attr_value
from aliceserver.debuggers.symbols.dwarf.dieattrs import die_name as die_name
from aliceserver.debuggers.symbols.dwarf.dieattrs import origin_die as origin_die
from aliceserver.debuggers.symbols.dwarf.dieattrs import resolved_attr as resolved_attr
from aliceserver.debuggers.symbols.dwarf.dietree import children, parent_of
from aliceserver.debuggers.symbols.dwarf.dwarffile import MACHINES, dwarf_info
from aliceserver.debuggers.symbols.dwarf.languages import language_name as language_name
from aliceserver.debuggers.symbols.dwarf.leafspans import LeafSpans, leaf_span
from aliceserver.debuggers.symbols.dwarf.localscopes import LocalScopes
from aliceserver.debuggers.symbols.dwarf.names import split_qualified
from aliceserver.debuggers.symbols.dwarf.rangelists import v4_ranges, v5_ranges
from aliceserver.debuggers.symbols.dwarf.rowcache import MIN_UNIT
from aliceserver.debuggers.symbols.dwarf.scopewalk import Link, scope_chain
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.errors import TargetError, Unsupported

if TYPE_CHECKING:
    from elftools.elf.elffile import ELFFile

    from aliceserver.debuggers.symbols.dwarf.rowcache import RowCache

log = logging.getLogger(__name__)

PT_TLS = 7
_FUNCTION_CACHE = 4096  # addresses whose scope chain is remembered
_UNIT_SCOPES_CACHE = 256  # units whose top-level scopes are remembered
_RANGE_LISTS_KEPT = 1 << 16  # decoded DW_AT_ranges lists remembered
_CALL_SITE_FUNCTIONS_KEPT = 4096  # functions whose call sites' offsets are remembered
_SCOPE_TAGS = frozenset(("DW_TAG_lexical_block", "DW_TAG_inlined_subroutine"))
_DEFINITION_TAGS = frozenset(
    (
        "DW_TAG_variable",
        "DW_TAG_subprogram",
        "DW_TAG_typedef",
        "DW_TAG_structure_type",
        "DW_TAG_class_type",
        "DW_TAG_union_type",
        "DW_TAG_enumeration_type",
        "DW_TAG_base_type",
    )
)
# Tags under which named program entities (variables, functions) are found by name.
_NAMESPACE_TAGS = frozenset(("DW_TAG_namespace",))


# What pyelftools raises on corrupt DWARF (bad abbreviation codes, forms, offsets, lengths).
_CORRUPT = (ELFError, DWARFError, KeyError, IndexError, ValueError, TypeError, AttributeError,
            AssertionError, NotImplementedError, struct.error, OverflowError)  # fmt: skip
_F = TypeVar("_F", bound=Callable[..., Any])


def _corrupt_is_target_error(method: _F) -> _F:
    """Corrupt DWARF surfaces as a TargetError naming the file (a clear reply to the
    client), never as whatever pyelftools raised."""

    @functools.wraps(method)
    def wrapper(self: DwarfUnits, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except _CORRUPT as exc:
            raise TargetError(
                f"corrupt DWARF in {self.image.path}: {type(exc).__name__}: {exc}"
            ) from exc

    return cast(_F, wrapper)


@dataclass(frozen=True, slots=True)
class FunctionAt:
    """The innermost concrete function around an address and the scopes inside it."""

    subprogram: DIE  # DW_TAG_subprogram (out-of-line code holding the address)
    scopes: tuple[DIE, ...]  # subprogram, then nested lexical blocks / inlined subroutines
    inlined: tuple[DIE, ...]  # the DW_TAG_inlined_subroutine DIEs among `scopes`


class DwarfUnits:
    """pyelftools' DWARFInfo for one image, opened on first use, with per-CU caches.

    pyelftools reads through one file object, so every parse is serialized by a lock.
    """

    def __init__(self, image: ElfImage) -> None:
        self.image = image
        self._lock = threading.RLock()
        self._file: IO[bytes] | None = None
        self._elf: ELFFile | None = None
        self._raw: ElfSections | None = None  # the sections read without pyelftools
        self._info: DWARFInfo | None = None
        self._opened = False
        self._sections: dict[str, bytes | None] = {}
        self._aranges_failed = False
        self._aranges: Any = None
        self._functions: dict[tuple[int, int], FunctionAt | None] = {}
        self._leaf_spans: LeafSpans[FunctionAt] = LeafSpans()  # by pc ranges: see leafspans.py
        # unit offset -> its top-level scopes with their code ranges (coderanges.py)
        self._unit_scopes: dict[int, ScopeIndex] = {}
        self.stored: RowCache | None = None  # where units' scopes are kept between sessions
        self._local = LocalScopes()  # where none holds a pc: local classes' methods
        self._abbrevs: AbbrevCache | None = None  # .debug_abbrev's tables, for unit_scopes
        self._unit_bytes: tuple[int, bytes] | None = None  # the last unit scope_chain read
        self._range_lists: dict[tuple[int, int], tuple[tuple[int, int], ...]] = {}  # (unit, list offset)
        # function DIE offset -> ({return pc: call site DIE offset}, tail call sites' offsets)
        # (callsitewalk.py)
        self._call_sites: dict[int, tuple[dict[int, int], list[int]]] = {}
        self._cu_ranges: list[tuple[int, int, int]] | None = None  # (low, high, cu offset)
        self._names: dict[int, dict[str, list[DIE]]] = {}  # cu offset -> name -> DIEs
        self._namespaces: dict[int, set[str]] = {}  # cu offset -> its namespaces' qualified names
        self._all_cu_offsets: list[int] | None = None
        # DW_AT_name -> offsets of the CUs that may hold it (globalnames.py); None: none
        # given, or it could not be built, and a name not found nearby means every CU.
        self.name_index: Callable[[str], list[int] | None] | None = None

    # --- opening ------------------------------------------------------------------
    @property
    def info(self) -> DWARFInfo | None:
        """The DWARFInfo, or None when the image has no .debug_info."""
        with self._lock:
            if not self._opened:
                self._opened = True
                self._open()
            return self._info

    def _open(self) -> None:
        try:
            self._file = open(self.image.path, "rb")  # noqa: SIM115 - kept open for pyelftools
            if self.image.machine in MACHINES:
                try:
                    self._raw = ElfSections(self.image.path, file=self._file)
                    self._info = dwarf_info(self._raw, self._file, self.image.machine)
                    return
                except (TargetError, Unsupported) as exc:  # odd files: pyelftools' own way
                    log.debug("%s: %s", self.image.path, exc)
                    self._raw = None
            from elftools.elf.elffile import ELFFile  # here: only for what dwarffile cannot read

            self._elf = ELFFile(self._file)
            if self._elf.has_dwarf_info() and self._elf.get_section_by_name(".debug_info"):
                # pyelftools reads whole sections: a corrupt size must not allocate gigabytes.
                end = os.fstat(self._file.fileno()).st_size
                for sec in self._elf.iter_sections():
                    if sec.name.startswith((".debug", ".zdebug", ".eh_frame")) and sec["sh_type"] != "SHT_NOBITS":
                        if sec["sh_offset"] + sec["sh_size"] > end:
                            raise ELFError(f"section {sec.name} extends past the end of the file")
                self._info = self._elf.get_dwarf_info(relocate_dwarf_sections=False)
        except (OSError, MemoryError, *_CORRUPT) as exc:  # unreadable: degraded, no DWARF
            log.warning("no DWARF from %s: %s", self.image.path, exc)
            self._info = None

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
            if self._raw is not None:
                self._raw.close()
            self._file = self._info = self._elf = self._raw = None
            self._abbrevs = None
            self._unit_bytes = None

    def section(self, name: str) -> bytes | None:
        """The raw bytes of a section (e.g. .debug_loclists), cached; None when absent."""
        with self._lock:
            if name not in self._sections:
                if self.info is None:
                    return None
                if self._raw is not None:
                    found = self._raw.header(name, exact=True) is not None
                    self._sections[name] = self._raw.get(name) if found else None
                elif self._elf is not None:
                    sec = self._elf.get_section_by_name(name)
                    self._sections[name] = None if sec is None else bytes(sec.data())
                else:
                    return None
            return self._sections[name]

    def section_part(self, name: str, offset: int, size: int) -> bytes | None:
        """`size` bytes at `offset` of a section (fewer at its end, b"" past it); None when
        absent. Only those are read where the whole section is not held already."""
        with self._lock:
            held = name in self._sections
        if not held and self._raw is not None and self.info is not None:
            return self._raw.read(name, offset, size) if self._raw.header(name, exact=True) is not None else None
        whole = self.section(name)
        return None if whole is None else whole[offset : offset + size]

    @functools.cached_property
    def tls_block_offset(self) -> int | None:
        """For the executable, how far below the thread pointer its TLS block starts
        (x86-64 variant II: the block ends at the thread pointer). Kept: asked for each
        variable's location, and the image's segments never change."""
        for seg in self.image.segments:
            if seg.type == PT_TLS:
                align = max(seg.align, 1)
                return (seg.memsz + align - 1) // align * align
        return None

    # --- units ---------------------------------------------------------------------
    @_corrupt_is_target_error
    def cu_at_offset(self, offset: int) -> CompileUnit:
        info = self.info
        assert info is not None
        with self._lock:
            return info.get_CU_at(offset)

    def unit_read(self, offset: int) -> bool:
        """Whether the DIEs of the unit at `offset` have been read past its top level for a
        scope or a name (gdb's expanded symtab; `info sources` tells which are)."""
        with self._lock:
            return offset in self._unit_scopes or offset in self._names

    @_corrupt_is_target_error
    def cu_for_address(self, address: int) -> CompileUnit | None:
        """The CU whose code covers link-time `address` (aranges first, then CU ranges)."""
        info = self.info
        if info is None:
            return None
        with self._lock:
            if self._aranges is None and not self._aranges_failed:
                try:  # pyelftools re-parses the section on every get_aranges(): keep one
                    self._aranges = self._raw_aranges() if self._raw else info.get_aranges()
                except Exception as exc:  # pyelftools raises assorted errors
                    log.debug("aranges unreadable: %s", exc)
                self._aranges_failed = self._aranges is None
            if self._aranges is not None:
                off = self._aranges.cu_offset_at_addr(address)
                if off is not None:
                    return info.get_CU_at(off)
            for low, high, off in self._scan_cu_ranges():
                if low <= address < high:
                    return info.get_CU_at(off)
        return None

    def _raw_aranges(self) -> RawAranges | None:
        raw = self._raw
        if raw is None or raw.header(".debug_aranges", exact=True) is None:
            return None
        return RawAranges(raw.get(".debug_aranges"))

    def _scan_cu_ranges(self) -> list[tuple[int, int, int]]:
        # Built once, from the top DIEs of the units .debug_aranges does not list (a listed
        # one is trusted, as the index does): all 2,200 of huge_program's took 0.2 s for _start.
        if self._cu_ranges is None:
            listed = self._aranges.units if isinstance(self._aranges, RawAranges) else frozenset()
            self._cu_ranges = [(low, high, off) for off in self.cu_offsets() if off not in listed
                               for low, high in self.die_ranges(self.cu_at_offset(off).get_top_DIE())]  # fmt: skip
        return self._cu_ranges

    @_corrupt_is_target_error
    def cu_offsets(self) -> list[int]:
        """Offsets of every CU header (headers only; no DIE is parsed)."""
        info = self.info
        if info is None:
            return []
        with self._lock:
            if self._all_cu_offsets is None:
                raw = None if info.supplementary_dwarfinfo else self._raw  # dwz's: altfile.py
                self._all_cu_offsets = unit_offsets(raw) if raw else [cu.cu_offset for cu in info.iter_CUs()]
            return self._all_cu_offsets

    # --- ranges ----------------------------------------------------------------------
    def die_ranges(self, die: DIE) -> list[tuple[int, int]]:
        """[low, high) ranges of a DIE from low/high_pc or DW_AT_ranges; [] when it has none."""
        attrs = die.attributes
        if "DW_AT_low_pc" in attrs and "DW_AT_high_pc" in attrs:
            low = attrs["DW_AT_low_pc"].value
            high_attr = attrs["DW_AT_high_pc"]
            high = high_attr.value
            if high_attr.form not in ("DW_FORM_addr",) and not high_attr.form.startswith(
                "DW_FORM_addrx"
            ):
                high = low + high  # DWARF 4+: high_pc as an offset from low_pc
            return [(low, high)]
        if "DW_AT_ranges" in attrs:
            with self._lock:
                return self._range_list(die)
        return []

    def die_contains(self, die: DIE, address: int) -> bool:
        return any(low <= address < high for low, high in self.die_ranges(die))

    def cu_base(self, cu: CompileUnit | TypeUnit) -> int:
        top = cu.get_top_DIE()
        low = attr_value(top, "DW_AT_low_pc")
        return int(low) if low is not None else 0

    @_corrupt_is_target_error
    def addrx(self, cu: CompileUnit | TypeUnit, index: int) -> int:
        info = self.info
        assert info is not None
        with self._lock:
            return int(info.get_addr(cu, index))

    def _range_list(self, die: DIE) -> list[tuple[int, int]]:
        # pyelftools has resolved a DW_FORM_rnglistx index to its list's offset already.
        return self._ranges_at(die.cu, die.attributes["DW_AT_ranges"].value)

    # --- scopes -----------------------------------------------------------------------
    @_corrupt_is_target_error
    def function_die_at(self, cu: CompileUnit, address: int) -> FunctionAt | None:
        """The innermost DW_TAG_subprogram containing `address`, with its nested scopes.

        Cached per address: conditions evaluate at the same pcs again and again."""
        key = (cu.cu_offset, address)
        with self._lock:
            if key in self._functions:
                return self._functions[key]
            spanned, found = self._leaf_spans.at(cu.cu_offset, address)  # a pc near one seen
            if not spanned:
                found = self._function_die_at(cu, address)
            if len(self._functions) >= _FUNCTION_CACHE:
                self._functions.pop(next(iter(self._functions)))
            self._functions[key] = found
            return found

    def _function_die_at(self, cu: CompileUnit, address: int) -> FunctionAt | None:
        with self._lock:
            chain = self._scopes_at(cu, address)
        sub_index = max(
            (i for i, d in enumerate(chain) if d.tag == "DW_TAG_subprogram"), default=None
        )
        if sub_index is None:
            return None
        scopes = tuple(chain[sub_index:])
        inlined = tuple(d for d in scopes if d.tag == "DW_TAG_inlined_subroutine")
        found = FunctionAt(chain[sub_index], scopes, inlined)
        leaf = chain[-1]
        inner = (self.die_ranges(c) for c in children(leaf) if c.tag == "DW_TAG_subprogram" or c.tag in _SCOPE_TAGS)
        span = leaf_span(address, self.die_ranges(leaf), inner)
        if span is not None:
            self._leaf_spans.remember(cu.cu_offset, span, found)
        return found

    def _scopes_at(self, cu: CompileUnit, address: int) -> list[DIE]:
        """What _descend finds from the unit's top DIE; its top level found in the raw
        bytes (rawscopes.py: a big unit's top-level DIEs cost pyelftools 15-20 ms)."""
        top = cu.get_top_DIE()
        paths = self._raw_scopes(cu, address)
        if paths is None:
            return self._descend(top, address)
        addr = self.section(".debug_addr") or b""
        return self._chain_of(cu, paths, address) or self._chain_of(
            cu, self._local.paths_at(cu.cu_offset, cu.size, address, self._raw, self._abbrevs, addr), address)

    def _chain_of(self, cu: CompileUnit, paths: list[tuple[int, ...]], address: int) -> list[DIE]:
        top = cu.get_top_DIE()
        for path in paths:
            die = top
            for offset in path:
                child = cu.get_DIE_from_refaddr(cu.cu_offset + offset)
                child.set_parent(die)  # as iter_children would have
                die = child
            if self.die_contains(die, address):
                return [die, *self._descend_from(cu, die, address)]
        return []

    def _descend_from(self, cu: CompileUnit, die: DIE, address: int) -> list[DIE]:
        """_descend(die, address), its chain found in the raw bytes (scopewalk.py) where
        they can tell, so that pyelftools parses only the DIEs of the chain."""
        links = self._raw_chain(cu, die, address)
        if links is None:
            return self._descend(die, address)
        parsed = {die.offset - cu.cu_offset: die}
        chain: list[DIE] = []
        for offset, parent in links:
            if parent not in parsed:  # under a namespace inside a function: not seen yet
                return self._descend(die, address)
            child = cu.get_DIE_from_refaddr(cu.cu_offset + offset)
            child.set_parent(parsed[parent])  # as iter_children would have
            parsed[offset] = child
            chain.append(child)
        return chain

    def _raw_chain(self, cu: CompileUnit, die: DIE, address: int) -> list[Link] | None:
        if self._raw is None or self._abbrevs is None:
            return None
        try:
            held = self._unit_bytes
            if held is None or held[0] != cu.cu_offset:
                held = self._unit_bytes = (cu.cu_offset, self._raw.read(".debug_info", cu.cu_offset, cu.size))
            addr = self.section(".debug_addr") or b""
            return scope_chain(held[1], cu.cu_offset, self._abbrevs, addr, die.offset - cu.cu_offset,
                               address, lambda form, value: self._ranges_at(cu, value))  # fmt: skip
        except (IndexError, KeyError, ValueError, struct.error, TargetError) as exc:
            log.debug("scopes at %#x read through pyelftools: %s", address, exc)
            return None

    def call_site_offsets(self, cu: CompileUnit, function: DIE) -> dict[int, int] | None:
        """{return pc: section offset of its DIE} of the call sites under `function` (the
        first for each return pc, as callsites indexes them), read from the unit's bytes;
        None where they cannot be (the caller walks the DIEs)."""
        found = self._call_site_offsets(cu, function)
        return found[0] if found is not None else None

    def tail_call_site_offsets(self, cu: CompileUnit, function: DIE) -> list[int] | None:
        """The section offsets of the tail call sites under `function`, in DIE order, read
        from the unit's bytes; None where they cannot be (the caller walks the DIEs)."""
        found = self._call_site_offsets(cu, function)
        return found[1] if found is not None else None

    def _call_site_offsets(self, cu: CompileUnit, function: DIE) -> tuple[dict[int, int], list[int]] | None:
        found = self._call_sites.get(function.offset)
        if found is not None or self._raw is None:
            return found
        try:
            held = self._unit_bytes
            if held is None or held[0] != cu.cu_offset:
                held = self._unit_bytes = (cu.cu_offset, self._raw.read(".debug_info", cu.cu_offset, cu.size))
            if self._abbrevs is None:
                self._abbrevs = AbbrevCache(self.section(".debug_abbrev") or b"")
            addr = self.section(".debug_addr") or b""
            sites = call_sites_under(held[1], cu.cu_offset, self._abbrevs, addr, function.offset - cu.cu_offset)
        except (IndexError, KeyError, ValueError, struct.error, TargetError) as exc:
            log.debug("call sites of %#x read through pyelftools: %s", function.offset, exc)
            return None
        if sites is None:
            return None
        offsets: dict[int, int] = {}
        for returns_to, offset, _tail in sites:
            if returns_to is not None:
                offsets.setdefault(returns_to, offset)
        if len(self._call_sites) >= _CALL_SITE_FUNCTIONS_KEPT:
            self._call_sites.clear()
        found = self._call_sites[function.offset] = (offsets, [offset for _pc, offset, tail in sites if tail])
        return found

    def _ranges_at(self, cu: CompileUnit | TypeUnit, offset: int) -> list[tuple[int, int]]:
        """_range_list of a DIE whose DW_AT_ranges is the section offset `offset`, decoded
        once: each step through a -O2 function's scopes read some 50 of them again."""
        key = (cu.cu_offset, offset)
        found = self._range_lists.get(key)
        if found is None:
            if len(self._range_lists) >= _RANGE_LISTS_KEPT:
                self._range_lists.clear()
            found = self._range_lists[key] = tuple(self._decode_ranges(cu, offset))
        return list(found)

    def _decode_ranges(self, cu: CompileUnit | TypeUnit, offset: int) -> list[tuple[int, int]]:
        base = self.cu_base(cu)
        if cu.header.version < 5:
            data = self.section(".debug_ranges")
            return [] if data is None else v4_ranges(data, offset, base)
        data = self.section(".debug_rnglists")
        return [] if data is None else v5_ranges(data, offset, base, lambda i: self.addrx(cu, i))

    def _raw_scopes(self, cu: CompileUnit, address: int) -> list[tuple[int, ...]] | None:
        if self._raw is None:
            return None
        try:
            scopes = self._unit_scopes.get(cu.cu_offset)
            if scopes is None:
                scopes = ScopeIndex(self._read_unit_scopes(cu))
                if len(self._unit_scopes) >= _UNIT_SCOPES_CACHE:
                    self._unit_scopes.pop(next(iter(self._unit_scopes)))
                self._unit_scopes[cu.cu_offset] = scopes
            return scopes.candidates_at(address)
        except (IndexError, KeyError, ValueError, struct.error, TargetError) as exc:
            log.debug("unit at %#x read through pyelftools: %s", cu.cu_offset, exc)
            return None

    def _read_unit_scopes(self, cu: CompileUnit) -> list[Scope]:
        """unit_scopes of `cu`, kept on disk for a big unit (rowcache.py)."""
        stored = self.stored if cu.size >= MIN_UNIT else None
        found = stored.load_scopes(cu.cu_offset) if stored is not None else None
        if found is not None:
            return found
        assert self._raw is not None
        unit = self._raw.read(".debug_info", cu.cu_offset, cu.size)
        if self._abbrevs is None:
            self._abbrevs = AbbrevCache(self.section(".debug_abbrev") or b"")
        found = unit_scopes(unit, cu.cu_offset, self._abbrevs, self.section(".debug_addr") or b"")
        if stored is not None:
            stored.store_scopes(cu.cu_offset, found)
        return found

    def _descend(self, die: DIE, address: int) -> list[DIE]:
        chain: list[DIE] = []
        current = die
        while True:
            nxt = None
            for child in children(current):
                tag = child.tag
                if tag == "DW_TAG_subprogram" or tag in _SCOPE_TAGS:
                    if self.die_contains(child, address):
                        nxt = child
                        break
                elif tag in _NAMESPACE_TAGS or tag in (
                    "DW_TAG_class_type",
                    "DW_TAG_structure_type",
                ):
                    # C++ member functions defined in class bodies are rare as code owners,
                    # but namespaces hold real subprograms.
                    if tag in _NAMESPACE_TAGS and child.has_children:
                        sub = self._descend(child, address)
                        if sub:
                            chain.extend(sub)
                            return chain
            if nxt is None:
                return chain
            chain.append(nxt)
            current = nxt

    # --- names -------------------------------------------------------------------------
    @_corrupt_is_target_error
    def top_level_names(self, cu: CompileUnit) -> dict[str, list[DIE]]:
        """Names of the CU's top-level (and namespace-level) variables, functions and types.

        Cost: parses the CU's top-level DIEs (siblings are skipped via DW_AT_sibling)."""
        with self._lock:
            names = self._names.get(cu.cu_offset)
            if names is None:
                found: dict[str, list[DIE]] = {}
                spaces: set[str] = set()
                self._collect_names(cu.get_top_DIE(), "", found, spaces)
                self._names[cu.cu_offset], self._namespaces[cu.cu_offset] = found, spaces
                names = found
            return names

    def is_namespace(self, name: str, first_cu: CompileUnit | None = None) -> bool:
        """Whether a unit declares the namespace `name` (`std`, `a::b`): `first_cu`, then
        every unit (their top-level DIEs parsed, as top_level_names: asked where a name is
        not found, for gdb's error)."""
        units = [first_cu] if first_cu is not None else []
        for cu in itertools.chain(units, (self.cu_at_offset(off) for off in self.cu_offsets())):
            self.top_level_names(cu)
            if name in self._namespaces.get(cu.cu_offset, ()):
                return True
        return False

    def _collect_names(self, parent: DIE, prefix: str, out: dict[str, list[DIE]], spaces: set[str]) -> None:
        for child in children(parent):
            if child.tag in _DEFINITION_TAGS:
                name = die_name(child)
                if name:
                    out.setdefault(_scope_of_spec(child, prefix) + name, []).append(child)
                if child.tag == "DW_TAG_enumeration_type" and child.has_children:
                    scoped = f"{prefix}{name}::" if name else prefix
                    for enumerator in children(child):
                        ename = die_name(enumerator)
                        if ename:
                            if not attr_value(child, "DW_AT_enum_class"):
                                out.setdefault(prefix + ename, []).append(enumerator)
                            out.setdefault(scoped + ename, []).append(enumerator)
            elif child.tag in _NAMESPACE_TAGS:
                ns = die_name(child)
                if ns:
                    spaces.add(prefix + ns)
                # Names in an anonymous namespace are reachable unqualified, as in C++.
                self._collect_names(child, f"{prefix}{ns}::" if ns else prefix, out, spaces)

    def find_dies(self, name: str, *, first_cu: CompileUnit | None = None) -> Iterator[DIE]:
        """Top-level DIEs called `name`: `first_cu`'s, then those of the CUs the name index
        lists (defining ones first); without an index, the ELF symbol's CU, then every CU.

        Scanning a CU parses its top-level DIEs once (then cached)."""
        tried: set[int] = set()
        candidates: list[CompileUnit] = []
        if first_cu is not None:
            candidates.append(first_cu)
        # Without an index, the symbol's CU saves a scan; with one it costs more than it
        # saves (a data symbol is in no CU's code ranges: finding its CU reads them all).
        sym = self.image.find_symbol(name) if self.name_index is None else None
        if sym is not None:
            cu = self.cu_for_address(sym.address)
            if cu is not None:
                candidates.append(cu)
        for cu in candidates:
            if cu.cu_offset in tried:
                continue
            tried.add(cu.cu_offset)
            yield from self.top_level_names(cu).get(name, [])
        index = self.name_index
        parts = split_qualified(name) if index is not None else []
        listed = index(parts[-1]) if index is not None and parts else None
        for off in self.cu_offsets() if listed is None else listed:
            if off in tried:
                continue
            tried.add(off)
            yield from self.top_level_names(self.cu_at_offset(off)).get(name, [])


def _scope_of_spec(die: DIE, prefix: str) -> str:
    """`Class::` for an out-of-class definition (a method, a static member) whose
    DW_AT_specification lies inside a class or namespace; else `prefix`."""
    try:
        for _ in range(4):  # concrete -> abstract origin -> specification
            if "DW_AT_specification" in die.attributes:
                break
            if "DW_AT_abstract_origin" not in die.attributes:
                return prefix
            die = die.get_DIE_from_attribute("DW_AT_abstract_origin")
        else:
            return prefix
        spec = die.get_DIE_from_attribute("DW_AT_specification")
        parts: list[str] = []
        parent = parent_of(spec)
        while parent is not None and parent.tag in (
            "DW_TAG_namespace",
            "DW_TAG_structure_type",
            "DW_TAG_class_type",
            "DW_TAG_union_type",
        ):
            name = die_name(parent)
            if name:  # anonymous namespaces add no qualifier (see _collect_names)
                parts.append(name)
            parent = parent_of(parent)
    except Exception as exc:  # a broken reference: keep the plain name
        log.debug("specification of %#x: %s", die.offset, exc)
        return prefix
    return "".join(f"{p}::" for p in reversed(parts)) if parts else prefix
