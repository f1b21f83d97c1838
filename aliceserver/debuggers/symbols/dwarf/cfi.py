"""Call frame information of one ELF image: `.eh_frame` (through `.eh_frame_hdr`) and
`.debug_frame`, parsed from raw bytes, with the unwind rows of each FDE cached.

The unwinder itself lives in `unwind.py`; its public names are re-exported here so that
callers import everything about CFI from this module.
"""

from __future__ import annotations

import logging
import struct
import threading
import weakref
import zlib
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import BinaryIO

from aliceserver.debuggers.model import Module
from aliceserver.debuggers.symbols.dwarf.cfa_program import (
    DW_EH_PE_OMIT,
    Bases,
    Cie,
    Fde,
    Reader,
    UnwindRow,
    encoded_size,
    fde_rows,
    read_encoded,
)
from aliceserver.debuggers.symbols.dwarf.unwind import UnwoundFrame, unwind_stack
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.debuggers.symbols.elfheaders import SHF_COMPRESSED, SHT_NOBITS, Section
from aliceserver.debuggers.symbols.process import ProcessSymbols
from aliceserver.errors import AliceError, TargetError

__all__ = ["CfiTable", "CfiTables", "UnwindRow", "UnwoundFrame", "unwind_stack"]

log = logging.getLogger(__name__)

_CHDR = struct.Struct("<IIQQ")  # Elf64_Chdr
_ELFCOMPRESS_ZLIB = 1
_WANTED = (".eh_frame", ".eh_frame_hdr", ".debug_frame")
_MAX_SECTION = 1 << 30  # a corrupt header must not make us allocate without bound
_ROW_CACHE = 4096  # FDEs whose rows are kept per table
_PC_CACHE = 4096  # pcs whose row is remembered per table


@dataclass(frozen=True, slots=True)
class _Section:
    name: str
    vaddr: int  # link-time address (0 for .debug_frame, which is not loaded)
    data: bytes


class _FrameSection:
    """One of .eh_frame / .debug_frame: CIE cache and (lazily) a sorted FDE table."""

    def __init__(self, section: _Section, *, is_eh: bool) -> None:
        self.section = section
        self.is_eh = is_eh
        self.bases = Bases(section.vaddr)
        self._cies: dict[int, Cie] = {}
        self._starts: list[int] | None = None  # sorted FDE initial locations
        self._entries: list[tuple[int, int, int]] = []  # (low, high, offset), same order

    # --- parsing ------------------------------------------------------------------------
    def cie_at(self, offset: int) -> Cie:
        cie = self._cies.get(offset)
        if cie is None:
            cie = _parse_cie(self.section.data, offset, is_eh=self.is_eh)
            self._cies[offset] = cie
        return cie

    def fde_at(self, offset: int) -> Fde | None:
        """The FDE at `offset`; None for a CIE or the terminator."""
        data = self.section.data
        header = _entry_header(data, offset, is_eh=self.is_eh)
        if header is None:
            return None
        start, end, cie_pointer, id_size = header
        if cie_pointer is None:
            return None
        cie = self.cie_at(cie_pointer)
        reader = Reader(data, start + id_size, end)
        low = read_encoded(reader, cie.fde_encoding, self.bases)
        length = read_encoded(reader, cie.fde_encoding & 0x0F, self.bases)
        if cie.has_augmentation_data:
            skip = reader.uleb()  # the LSDA pointer: unwinding does not need it
            reader.pos += skip
        if reader.pos > end:
            raise TargetError(f"FDE at {offset:#x} overruns its length")
        return Fde(
            offset=offset,
            cie=cie,
            low=low,
            high=low + length,
            instructions=bytes(data[reader.pos : end]),
            instructions_vaddr=self.section.vaddr + reader.pos,
        )

    # --- lookup without a search table ------------------------------------------------
    def find_by_scan(self, pc: int) -> Fde | None:
        """Binary search in an FDE table built once by walking the whole section."""
        if self._starts is None:
            self._build_index()
        assert self._starts is not None
        i = bisect_right(self._starts, pc) - 1
        # Overlapping FDEs are rare; look back a few entries for one that covers pc.
        for j in range(i, max(i - 4, -1), -1):
            low, high, offset = self._entries[j]
            if low <= pc < high:
                return self.fde_at(offset)
        return None

    def _build_index(self) -> None:
        entries: list[tuple[int, int, int]] = []
        data = self.section.data
        offset = 0
        while offset + 4 <= len(data):
            try:
                header = _entry_header(data, offset, is_eh=self.is_eh)
                if header is None:
                    break
                start, end, cie_pointer, _ = header
                if cie_pointer is not None:
                    fde = self.fde_at(offset)
                    if fde is not None and fde.high > fde.low:
                        entries.append((fde.low, fde.high, offset))
            except TargetError as exc:
                log.debug("%s: bad entry at %#x: %s", self.section.name, offset, exc)
                break
            offset = end
        entries.sort()
        self._entries = entries
        self._starts = [e[0] for e in entries]
        log.debug("%s: indexed %d FDEs", self.section.name, len(entries))


class _SearchTable:
    """The binary search table of `.eh_frame_hdr`: (initial location, FDE address) pairs."""

    def __init__(self, hdr: _Section, eh_frame_vaddr: int) -> None:
        data = hdr.data
        reader = Reader(data)
        version = reader.u8()
        ptr_enc, count_enc, self.table_enc = reader.u8(), reader.u8(), reader.u8()
        if version != 1:
            raise TargetError(f".eh_frame_hdr version {version} is not supported")
        bases = Bases(hdr.vaddr, data=hdr.vaddr)
        self.eh_frame_ptr = read_encoded(reader, ptr_enc, bases)
        self.count = 0 if count_enc == DW_EH_PE_OMIT else read_encoded(reader, count_enc, bases)
        size = encoded_size(self.table_enc)
        if self.table_enc == DW_EH_PE_OMIT or size is None or self.count <= 0:
            self.count = 0  # no usable table: the caller walks .eh_frame instead
            size = 0
        self.entry_size = 2 * size
        self.table = reader.pos
        if self.table + self.count * self.entry_size > len(data):
            raise TargetError(".eh_frame_hdr table is truncated")
        self.hdr = hdr
        self.bases = bases
        if self.eh_frame_ptr != eh_frame_vaddr:
            log.debug(".eh_frame_hdr points at %#x, .eh_frame is at %#x", self.eh_frame_ptr,
                      eh_frame_vaddr)  # fmt: skip
        # datarel sdata4, what every linker writes: unpack without the generic decoder.
        self._fast = self.table_enc == 0x3B

    def _entry(self, i: int) -> tuple[int, int]:
        at = self.table + i * self.entry_size
        if self._fast:
            low, fde = struct.unpack_from("<ii", self.hdr.data, at)
            return self.hdr.vaddr + low, self.hdr.vaddr + fde
        reader = Reader(self.hdr.data, at)
        return (
            read_encoded(reader, self.table_enc, self.bases),
            read_encoded(reader, self.table_enc, self.bases),
        )

    def find(self, pc: int) -> int | None:
        """Address of the FDE with the greatest initial location <= pc."""
        lo, hi = 0, self.count
        while lo < hi:
            mid = (lo + hi) // 2
            if self._entry(mid)[0] <= pc:
                lo = mid + 1
            else:
                hi = mid
        return None if lo == 0 else self._entry(lo - 1)[1]


class CfiTable:
    """The call frame information of one ELF image, by link-time address."""

    def __init__(
        self, path: str, eh_frame: _Section | None, hdr: _Section | None, debug: _Section | None
    ) -> None:
        self.path = path
        self._eh = _FrameSection(eh_frame, is_eh=True) if eh_frame else None
        self._debug = _FrameSection(debug, is_eh=False) if debug else None
        self._search: _SearchTable | None = None
        if hdr is not None and eh_frame is not None:
            try:
                search = _SearchTable(hdr, eh_frame.vaddr)
                self._search = search if search.count else None
            except TargetError as exc:
                log.debug("%s: unusable .eh_frame_hdr: %s", path, exc)
        self._rows: OrderedDict[tuple[bool, int], list[UnwindRow]] = OrderedDict()
        # The row per pc: a breakpoint hit again and again unwinds from the same pcs, and
        # finding the FDE is the costly part.
        self._by_pc: dict[int, UnwindRow | None] = {}
        self._lock = threading.Lock()

    @classmethod
    def load(cls, image: ElfImage) -> CfiTable | None:
        """The CFI of `image` (its file is read again for the frame sections); None when it
        has none. TargetError when the file cannot be read."""
        if not image.little_endian:
            raise TargetError(f"{image.path}: not a little-endian ELF64 file")
        sections = _read_sections(image.path, image.sections)
        eh, hdr, debug = (sections.get(name) for name in _WANTED)
        if eh is None and debug is None:
            return None
        return cls(image.path, eh, hdr, debug)

    def __repr__(self) -> str:
        parts = [n for n, s in (("eh_frame", self._eh), ("debug_frame", self._debug)) if s]
        hdr = "+hdr" if self._search else ""
        return f"CfiTable({self.path!r}, {'/'.join(parts)}{hdr})"

    def find_fde(self, link_pc: int) -> Fde | None:
        """The FDE covering `link_pc` (the .debug_frame one where both sections have it)."""
        found = self._find(link_pc)
        return found[1] if found else None

    def section_of(self, link_pc: int) -> str | None:
        """Which section's FDE covers `link_pc` (".eh_frame" or ".debug_frame")."""
        found = self._find(link_pc)
        return found[0].section.name if found else None

    def row_at(self, link_pc: int) -> UnwindRow | None:
        """The rules in force at `link_pc`; None when no FDE covers it. TargetError when the
        covering FDE is malformed."""
        with self._lock:
            if link_pc in self._by_pc:
                return self._by_pc[link_pc]
        row = self._row_at(link_pc)  # a TargetError is not remembered
        with self._lock:
            if len(self._by_pc) >= _PC_CACHE:
                self._by_pc.clear()
            self._by_pc[link_pc] = row
        return row

    def _row_at(self, link_pc: int) -> UnwindRow | None:
        found = self._find(link_pc)
        if found is None:
            return None
        section, fde = found
        key = (section.is_eh, fde.offset)
        with self._lock:
            rows = self._rows.get(key)
            if rows is not None:
                self._rows.move_to_end(key)
        if rows is None:
            rows = fde_rows(fde, section.bases)
            with self._lock:
                self._rows[key] = rows
                while len(self._rows) > _ROW_CACHE:
                    self._rows.popitem(last=False)
        # Rows are few per FDE (one per advance): a linear scan beats building a key list.
        for row in rows:
            if row.low <= link_pc < row.high:
                return row
        return None

    def _find(self, pc: int) -> tuple[_FrameSection, Fde] | None:
        """gdb's merged FDE table: the covering FDE that starts last, and of two starting at
        the same address the .debug_frame one (dwarf2/frame.c's fde_is_less_than)."""
        found: tuple[_FrameSection, Fde] | None = None
        for section in (self._eh, self._debug):
            if section is None:
                continue
            if section is self._eh and self._search is not None:
                address = self._search.find(pc)
                fde = None if address is None else section.fde_at(address - section.section.vaddr)
                if fde is None or not fde.low <= pc < fde.high:
                    continue
            else:
                fde = section.find_by_scan(pc)
                if fde is None:
                    continue
            if found is None or fde.low >= found[1].low:
                found = section, fde
        return found


class CfiTables:
    """`Module -> CfiTable | None` for unwind_stack, loading each image's table once.

    Tables are kept per ElfImage (weakly), so an ElfCache shared between sessions shares
    them too; a file without CFI or one that fails to load is remembered as None.
    """

    def __init__(self, symbols: ProcessSymbols) -> None:
        self._symbols = symbols
        self._tables: weakref.WeakKeyDictionary[ElfImage, CfiTable | None] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()

    def __call__(self, module: Module) -> CfiTable | None:
        image = self._symbols.mapped_image_of(module.path)  # symbols read or not (nosharedlibrary)
        if image is None:
            return None
        with self._lock:
            if image in self._tables:
                return self._tables[image]
        try:
            table = CfiTable.load(image)
        except AliceError as exc:
            log.debug("no call frame information for %s: %s", module.path, exc)
            table = None
        with self._lock:
            self._tables[image] = table
        return table


# --- raw entries ---------------------------------------------------------------------------


def _entry_header(
    data: bytes, offset: int, *, is_eh: bool
) -> tuple[int, int, int | None, int] | None:
    """(start of the id field, end, CIE offset or None for a CIE, id size); None at the
    .eh_frame terminator."""
    reader = Reader(data, offset)
    length = reader.unsigned(4)
    id_size = 4
    if length == 0xFFFFFFFF:
        length = reader.unsigned(8)
        id_size = 8
    if length == 0:
        if is_eh:
            return None
        raise TargetError(f"empty .debug_frame entry at {offset:#x}")
    start = reader.pos
    end = start + length
    if end > len(data):
        raise TargetError(f"call frame entry at {offset:#x} runs past its section")
    ident = reader.unsigned(id_size)
    if is_eh:
        return start, end, (None if ident == 0 else start - ident), id_size
    is_cie = ident == (1 << (8 * id_size)) - 1
    return start, end, (None if is_cie else ident), id_size


def _parse_cie(data: bytes, offset: int, *, is_eh: bool) -> Cie:
    header = _entry_header(data, offset, is_eh=is_eh)
    if header is None or header[2] is not None:
        raise TargetError(f"no CIE at offset {offset:#x}")
    start, end, _, id_size = header
    reader = Reader(data, start + id_size, end)
    version = reader.u8()
    if version not in (1, 3, 4):
        raise TargetError(f"CIE version {version} at {offset:#x} is not supported")
    augmentation = reader.cstring()
    address_size = 8
    if b"eh" in augmentation:
        reader.unsigned(8)  # the old GCC "eh" data pointer
    if version >= 4:
        address_size = reader.u8()
        reader.u8()  # segment selector size
        if address_size not in (4, 8):
            raise TargetError(f"CIE at {offset:#x}: address size {address_size}")
    code_align = reader.uleb()
    data_align = reader.sleb()
    return_column = reader.u8() if version == 1 else reader.uleb()
    fde_encoding = 0x00 if address_size == 8 else 0x03  # absptr / udata4
    lsda_encoding = DW_EH_PE_OMIT
    signal = False
    has_data = augmentation.startswith(b"z")
    if has_data:
        size = reader.uleb()
        data_end = reader.pos + size
        aug = Reader(data, reader.pos, data_end)
        for char in augmentation[1:]:
            if char == ord("R"):
                fde_encoding = aug.u8()
            elif char == ord("L"):
                lsda_encoding = aug.u8()
            elif char == ord("P"):
                read_encoded(aug, aug.u8(), Bases(0, data=0, text=0, func=0))  # personality
            elif char == ord("S"):
                signal = True
            elif char not in b"BG":  # B: aarch64 BTI keys, G: MTE; no data for either
                break  # unknown: the length lets us skip the rest
        reader.pos = data_end
    elif augmentation not in (b"", b"eh"):
        # Without "z" an unknown augmentation's data cannot be skipped; its rows are unusable.
        raise TargetError(f"CIE at {offset:#x}: unknown augmentation {augmentation!r}")
    if reader.pos > end:
        raise TargetError(f"CIE at {offset:#x} overruns its length")
    return Cie(
        offset=offset,
        code_align=code_align,
        data_align=data_align,
        return_column=return_column,
        fde_encoding=fde_encoding,
        lsda_encoding=lsda_encoding,
        has_augmentation_data=has_data,
        signal_frame=signal,
        address_size=address_size,
        instructions=bytes(data[reader.pos : end]),
    )


# --- the ELF file --------------------------------------------------------------------------


def _read_sections(path: str, headers: Sequence[Section]) -> dict[str, _Section]:
    """The bytes of the frame sections of the ELF64 file `path`, whose section headers
    (elfheaders.read_sections, kept by its ElfImage) are `headers`."""
    try:
        with open(path, "rb") as stream:
            found: dict[str, _Section] = {}
            for header in headers:
                name = header.name
                if name not in _WANTED or name in found or header.type == SHT_NOBITS or not header.size:
                    continue
                raw = _read_at(stream, header.offset, header.size)
                if header.flags & SHF_COMPRESSED:
                    raw = _decompress(path, name, raw)
                found[name] = _Section(name, header.addr if name != ".debug_frame" else 0, raw)
            return found
    except OSError as exc:
        raise TargetError(f"cannot read {path}: {exc.strerror or exc}", errno=exc.errno) from exc


def _read_at(stream: BinaryIO, offset: int, size: int) -> bytes:
    if size > _MAX_SECTION or not 0 <= offset < 1 << 62:  # seek takes a signed 64-bit offset
        raise TargetError(f"section of {size} bytes at {offset:#x} is implausible")
    stream.seek(offset)
    data = stream.read(size)
    if len(data) != size:
        raise TargetError(f"section at file offset {offset:#x} is past the end of the file")
    return data


def _decompress(path: str, name: str, raw: bytes) -> bytes:
    if len(raw) < _CHDR.size:
        raise TargetError(f"{path}: {name} is truncated")
    ch_type, _, ch_size, _ = _CHDR.unpack_from(raw)
    if ch_type != _ELFCOMPRESS_ZLIB or ch_size > _MAX_SECTION:
        raise TargetError(f"{path}: {name} has an unsupported compression")
    try:
        return zlib.decompress(raw[_CHDR.size :])
    except zlib.error as exc:
        raise TargetError(f"{path}: {name} does not decompress: {exc}") from exc
