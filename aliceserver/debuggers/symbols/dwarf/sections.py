"""Raw DWARF section access: section headers, decompression, separate debug files.

Reads the section header table with struct (pyelftools builds an object per section) and
section bytes with os.pread, on demand; a line program is read as a slice of .debug_line
without loading the whole section when the section is not compressed.
"""

from __future__ import annotations

import logging
import os
import struct
import threading
import weakref
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

from aliceserver.debuggers.symbols.dwarf.inflate import PartialInflate, WindowInflate
from aliceserver.debuggers.symbols.elfheaders import (
    EHDR_SIZE,
    SHF_ALLOC,
    SHF_COMPRESSED,
    SHT_NOBITS,
    ElfClass,
    MalformedElf,
    Section,
    classify,
    read_header,
    read_sections,
)
from aliceserver.errors import TargetError, Unsupported

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.inflatedcache import KeptSection

log = logging.getLogger(__name__)

ELFCOMPRESS_ZLIB = 1

_CHDR = struct.Struct("<IIQQ")  # Elf64_Chdr
DEFAULT_DEBUG_DIRS: tuple[str, ...] = ("/usr/lib/debug",)
# Code is read in blocks kept for later reads: each function's prologue analysis reads
# 64 bytes at its entry and more past it, and an open + pread each cost 20 us (rbreak .
# on 10,000 functions read 80,000 times).
_CODE_BLOCK = 1 << 14
_CODE_BLOCKS_KEPT = 64
# A compressed section an earlier session kept inflated (inflatedcache.py) is read from
# there once a read would inflate more than this (checking libc's 5.8 MB kept .debug_info
# takes 2-7 ms, inflating the 1.9 MB before a futex wait's unit 25-35), in reads of at most
# _KEPT_WINDOW bytes.
_KEPT_OVER = 256 << 10
_KEPT_WINDOW = 64 << 10


SectionHeader = Section  # the one section header type, from elfheaders


@dataclass(frozen=True, slots=True)
class FileIdentity:
    """What tells a changed file: realpath, mtime and size."""

    path: str
    mtime_ns: int
    size: int

    @classmethod
    def of(cls, path: str) -> FileIdentity:
        real = os.path.realpath(path)
        st = os.stat(real)
        return cls(real, st.st_mtime_ns, st.st_size)


def read_section_headers(path: str) -> list[SectionHeader]:
    """The section headers of the ELF64 little-endian file `path` (TargetError otherwise)."""
    try:
        with open(path, "rb") as stream:
            return _section_headers(stream.fileno(), path)
    except OSError as exc:
        raise TargetError(f"cannot read {path}: {exc.strerror or exc}", errno=exc.errno) from exc


def _section_headers(fd: int, path: str) -> list[SectionHeader]:
    head = os.pread(fd, EHDR_SIZE, 0)
    kind = classify(head)
    if kind is ElfClass.NOT_ELF:
        raise TargetError(f"{path}: not an ELF file")
    if kind is not ElfClass.ELF64_LSB:
        raise Unsupported(f"{path}: only 64-bit little-endian ELF files carry usable DWARF")
    try:
        return read_sections(fd, read_header(fd, head))
    except MalformedElf as exc:
        raise TargetError(f"{path}: malformed ELF file ({exc})") from exc


class ElfSections:
    """Section bytes of one ELF file, read on demand (decompressed ones are kept)."""

    def __init__(self, path: str, headers: Sequence[SectionHeader] | None = None,
                 file: IO[bytes] | None = None) -> None:  # fmt: skip
        """`file`: `path` opened by the caller, who closes it; read through it (the file
        as it was opened, even if `path` is replaced later)."""
        self.path = path
        self._file = file
        if headers is None and file is not None:
            headers = _section_headers(file.fileno(), path)
        self.headers = list(headers) if headers is not None else read_section_headers(path)
        self._by_name = {h.name: h for h in self.headers}
        self._inflated: dict[str, bytes] = {}
        self._partial: dict[str, PartialInflate] = {}  # sections inflated so far only
        self._ahead: dict[str, threading.Event] = {}  # being inflated by inflate_ahead
        self._windowed: set[str] = set()  # searched a window at a time once (window_reader)
        self._kept: dict[str, tuple[KeptSection, int] | None] = {}  # (its size); None: none
        self._keeps: dict[str, bool] = {}  # kept whole in the cache, or to be (_keeps_whole)
        self._written: set[str] = set()  # inflated whole here, kept (or tried) once
        self._closed = False  # its kept files closed (`close`)
        self._lock = threading.Lock()
        self._code: dict[int, bytes] = {}  # file offset -> _CODE_BLOCK bytes there

    def has(self, name: str) -> bool:
        header = self._find(name)
        return header is not None and header.type != SHT_NOBITS and header.size > 0

    def size(self, name: str) -> int:
        """The (uncompressed) size of section `name`, 0 when absent."""
        if not self.has(name):
            return 0
        header = self._find(name)
        assert header is not None
        if header.flags & SHF_COMPRESSED or header.name.startswith(".zdebug"):
            with self._lock:
                if header.name not in self._inflated:
                    declared = _declared_size(header, self._pread(header.offset, min(header.size, _CHDR.size)))
                    if declared is not None:
                        return declared
            return len(self.get(name))
        return header.size

    def header(self, name: str, *, exact: bool = False) -> SectionHeader | None:
        """The header of section `name` (or of its legacy `.zdebug_` form unless `exact`)."""
        return self._by_name.get(name) if exact else self._find(name)

    def get(self, name: str) -> bytes:
        """All bytes of section `name` (b"" when absent), decompressed."""
        return self.read(name, 0, None)

    def read(self, name: str, offset: int, size: int | None) -> bytes:
        """`size` bytes (None: to the end) at `offset` inside section `name`."""
        header = self._find(name)
        if header is None or header.type == SHT_NOBITS or header.size == 0:
            return b""
        compressed = header.flags & SHF_COMPRESSED or header.name.startswith(".zdebug")
        if compressed and size is None:
            return self._decompressed(header)[offset:]
        if compressed:
            return self._inflated_range(header, offset, size or 0)
        if offset >= header.size:
            return b""
        count = header.size - offset if size is None else min(size, header.size - offset)
        return self._pread(header.offset + offset, count)

    def read_address(self, address: int, size: int) -> bytes:
        """Bytes of the allocated, file-backed section holding link-time `address`."""
        for h in self.headers:
            if h.flags & SHF_ALLOC and h.type != SHT_NOBITS and h.addr <= address < h.addr + h.size:
                count = min(size, h.addr + h.size - address)
                return self._block_read(h, address - h.addr, count)
        return b""

    def _block_read(self, header: SectionHeader, offset: int, count: int) -> bytes:
        """`count` bytes at `offset` in the plain `header`'s section, by kept blocks."""
        first = offset - offset % _CODE_BLOCK
        if offset + count > first + 2 * _CODE_BLOCK:  # (more than two blocks: read alone)
            return self._pread(header.offset + offset, count)
        data = b""
        for start in range(first, offset + count, _CODE_BLOCK):
            block = self._code.get(header.offset + start)
            if block is None:
                if len(self._code) >= _CODE_BLOCKS_KEPT:
                    self._code.clear()
                try:
                    size = min(_CODE_BLOCK, header.size - start)
                    block = self._pread(header.offset + start, size)
                except TargetError:  # a truncated file: what can be read of it, as before
                    return self._pread(header.offset + offset, count)
                self._code[header.offset + start] = block
            data += block
        return data[offset - first : offset - first + count]

    def _find(self, name: str) -> SectionHeader | None:
        header = self._by_name.get(name)
        if header is None and name.startswith(".debug_"):
            header = self._by_name.get(".zdebug_" + name[len(".debug_") :])
        return header

    @contextmanager
    def reader(self, name: str) -> Iterator[Callable[[int, int], bytes]]:
        """`read(name, offset, size)` as a function of (offset, size), through a file
        descriptor of its own for the `with` block where the section is stored plain:
        a loop of small reads (each unit's first bytes) opened the file for each, 20 us."""
        header = self._find(name)
        if header is None or self._file is not None or _compressed(header) or header.type == SHT_NOBITS:
            yield lambda offset, size: self.read(name, offset, size)
            return
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError as exc:
            raise TargetError(f"cannot read {self.path}: {exc.strerror or exc}") from exc

        def read(offset: int, size: int) -> bytes:
            if offset >= header.size:
                return b""
            return self._pread(header.offset + offset, min(size, header.size - offset), fd)

        try:
            yield read
        finally:
            os.close(fd)

    def _pread(self, offset: int, count: int, fd: int = -1) -> bytes:
        try:
            if fd >= 0:
                data = self._pread_from(fd, offset, count)
            elif self._file is not None:
                data = self._pread_from(self._file.fileno(), offset, count)
            else:
                fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)  # (open(): twice the time)
                try:
                    data = self._pread_from(fd, offset, count)
                finally:
                    os.close(fd)
        except OSError as exc:
            raise TargetError(f"cannot read {self.path}: {exc.strerror or exc}") from exc
        if len(data) != count:
            raise TargetError(f"{self.path}: section data at {offset:#x} is truncated")
        return data

    def _pread_from(self, fd: int, offset: int, count: int) -> bytes:
        # A corrupt header may claim gigabytes: never allocate past the file's end.
        if offset + count > os.fstat(fd).st_size:
            raise TargetError(f"{self.path}: section data at {offset:#x} is truncated")
        return os.pread(fd, count, offset)

    def inflate_ahead(self, names: Iterable[str]) -> int:
        """Inflate the compressed ones of sections `names` now, each in one zlib call (it
        releases the GIL: another thread's reads meanwhile wait for it rather than inflate
        it again); the bytes inflated. For a thread working ahead of the session."""
        headers = [h for h in map(self._find, names) if h is not None and _compressed(h)]
        with self._lock:
            headers = [h for h in headers if h.name not in self._inflated and h.name not in self._partial
                       and h.name not in self._ahead]  # fmt: skip
            for header in headers:
                self._ahead[header.name] = threading.Event()
        done = 0
        for header in headers:
            try:
                stream, size = _zlib_stream(self.path, header, self._pread(header.offset, header.size))
                data = zlib.decompress(stream, zlib.MAX_WBITS, size + 1)
                if len(data) == size:  # else left to the reader, whose checks tell why
                    with self._lock:
                        self._inflated[header.name] = data
                        self._partial.pop(header.name, None)  # a reader's, begun meanwhile
                    done += len(data)
            except (zlib.error, TargetError, Unsupported) as exc:
                log.debug("%s: %s not inflated ahead: %s", self.path, header.name, exc)
            finally:
                with self._lock:
                    self._ahead.pop(header.name).set()
        return done

    def _await_ahead(self, name: str) -> None:
        """Wait while inflate_ahead works on section `name` (called without the lock)."""
        event = self._ahead.get(name)
        if event is not None:
            event.wait()

    def _decompressed(self, header: SectionHeader) -> bytes:
        self._await_ahead(header.name)
        name = header.name
        with self._lock:
            cached = self._inflated.get(name)
            if cached is not None:
                return cached
        keep = self._keeps_whole(name)
        if keep:  # kept whole by an earlier session, or to be (inflatedcache.py)
            kept = self._kept_for(name, 0)
            data = None if kept is None else self._read_kept(name, kept, 0, kept[1])
            if data is not None:
                with self._lock:
                    return self._inflated.setdefault(name, data)
        with self._lock:
            cached = self._inflated.get(name)
            if cached is not None:
                return cached
            partial = self._partial.pop(name, None) or self._inflater(header)
            data = self._inflated[name] = partial.whole()
            keep = keep and self._kept.get(name) is None and name not in self._written
            self._written.add(name)
        from aliceserver.debuggers.symbols.dwarf import inflatedcache  # (it imports this module)

        if keep and inflatedcache.can_keep(self, name):
            inflatedcache.keep_whole(self, name, data)
        return data

    def _keeps_whole(self, name: str) -> bool:
        """Whether section `name` is kept whole in the cache (read from there, or inflated
        whole and written there): known once per section."""
        keeps = self._keeps.get(name)
        if keeps is not None:
            return keeps
        from aliceserver.debuggers.symbols.dwarf import inflatedcache  # (it imports this module)

        keeps = self._keeps[name] = inflatedcache.keeps_whole(name) and (
            self._kept_for(name, 0) is not None or inflatedcache.can_keep(self, name)
        )
        return keeps

    def _inflated_range(self, header: SectionHeader, offset: int, size: int) -> bytes:
        """Bytes of a compressed section, inflated only up to their end (inflate.py), or
        read from where an earlier session kept it inflated."""
        self._await_ahead(header.name)
        kept = self._kept_for(header.name, offset + size)
        if kept is not None:
            read = self._read_kept(header.name, kept, offset, size)
            if read is not None:
                return read
        if self._keeps_whole(header.name):  # none kept yet: inflated whole, and kept
            return self._decompressed(header)[offset : offset + size]
        with self._lock:
            whole = self._inflated.get(header.name)
            if whole is not None:
                return whole[offset : offset + size]
            partial = self._partial.get(header.name)
            if partial is None:
                partial = self._partial[header.name] = self._inflater(header)
            data = partial.prefix(offset + size)
            if not partial.complete:
                return bytes(memoryview(data)[offset : offset + size])
        return self._decompressed(header)[offset : offset + size]

    def _kept_for(self, name: str, end: int) -> tuple[KeptSection, int] | None:
        """Section `name` kept inflated by an earlier session, checked, with its size:
        looked for once a read up to `end` would inflate more than _KEPT_OVER bytes (a
        first stop in libc's futex wait read 1.9 MB of its .debug_info, 25-35 ms of zlib)."""
        if name in self._kept:
            return self._kept[name]
        from aliceserver.debuggers.symbols.dwarf import inflatedcache  # (it imports this module)

        whole = inflatedcache.keeps_whole(name)  # (looked for at its first read)
        with self._lock:
            if name in self._inflated:
                return None
            partial = self._partial.get(name)
            if not whole and end - (partial.inflated if partial is not None else 0) <= _KEPT_OVER:
                return None  # (inflated as before; a read further on may look)

        found = inflatedcache.kept(self, name, _KEPT_WINDOW)
        kept = None if found is None else (found, self.size(name))
        with self._lock:
            if name in self._kept or self._closed:  # another thread's meanwhile, or closed
                if found is not None:
                    found.close()
                return self._kept.setdefault(name, None)
            self._kept[name] = kept
        if found is not None:
            weakref.finalize(self, found.close)
        return kept

    def close(self) -> None:
        """Close the kept files it reads (its session is over; a later read inflates):
        a long-lived server's sessions otherwise left them open until the garbage collector
        found these sections, which an idle server's may never do."""
        with self._lock:  # (not in the middle of a read: `_read_kept`)
            self._closed = True
            for name, kept in self._kept.items():
                if kept is not None:
                    kept[0].close()
                    self._kept[name] = None

    def _read_kept(
        self, name: str, kept: tuple[KeptSection, int], offset: int, size: int
    ) -> bytes | None:
        """`size` bytes at `offset` (fewer at the end) of section `name` from its kept file;
        None where the file was cut short since its check (then inflated as before)."""
        section, total = kept
        end = min(offset + size, total)
        parts = []
        with self._lock:  # (one buffer, reused by each read)
            try:
                for at in range(offset, end, _KEPT_WINDOW):
                    parts.append(bytes(section.read(at, min(_KEPT_WINDOW, end - at))))
            except (EOFError, OSError) as exc:
                log.info("%s: %s kept inflated no longer readable: %s", self.path, name, exc)
                self._kept[name] = None
                section.close()
                return None
        return b"".join(parts)

    def _inflater(self, header: SectionHeader) -> PartialInflate:
        read, length, size = self._stream_of(header)
        return PartialInflate(f"{self.path}: {header.name}", read, size, length)

    def window_reader(self, name: str) -> WindowInflate | None:
        """For the first search of compressed section `name`: its bytes a window at a
        time, none kept (libc's .debug_info is 5.8 MB inflated). None when it is stored
        plain, is inflated already, or was searched so before: a section searched again is
        inflated whole and kept (rbreak's thousands of names each search ld.so's)."""
        header = self._find(name)
        if header is None or header.type == SHT_NOBITS or not _compressed(header):
            return None
        self._await_ahead(header.name)
        with self._lock:
            if header.name in self._inflated or header.name in self._windowed:
                return None
            self._windowed.add(header.name)
        read, length, size = self._stream_of(header)
        return WindowInflate(f"{self.path}: {header.name}", read, size, length)

    def _stream_of(self, header: SectionHeader) -> tuple[Callable[[int, int], bytes], int, int]:
        """(read(offset, size) of a compressed section's zlib stream, the stream's length,
        the inflated size it declares): the stream is read from the file as inflating
        goes (libc's .debug_info: 2.3 MB of it, held whole for a 64-byte read before)."""
        head = 12 if header.name.startswith(".zdebug") else _CHDR.size
        raw = self._pread(header.offset, min(head, header.size))
        _stream, size = _zlib_stream(self.path, header, raw)
        start = header.offset + head

        def read(offset: int, count: int) -> bytes:
            return self._pread(start + offset, count)

        return read, max(0, header.size - head), size


def _compressed(header: SectionHeader) -> bool:
    return bool(header.flags & SHF_COMPRESSED) or header.name.startswith(".zdebug")


def _declared_size(header: SectionHeader, head: bytes) -> int | None:
    """The inflated size a compressed section's header declares (None: not readable), so
    that knowing the size does not take inflating it; inflate.py checks it when it inflates."""
    if header.name.startswith(".zdebug"):
        return int.from_bytes(head[4:12], "big") if head[:4] == b"ZLIB" and len(head) >= 12 else None
    if len(head) < _CHDR.size:
        return None
    ch_type, _reserved, ch_size, _align = _CHDR.unpack_from(head)
    return ch_size if ch_type == ELFCOMPRESS_ZLIB else None


def _zlib_stream(path: str, header: SectionHeader, raw: bytes) -> tuple[bytes, int]:
    """(the zlib stream, the inflated size it declares) of a compressed section's bytes."""
    if header.name.startswith(".zdebug"):  # legacy GNU format: "ZLIB" + big-endian size
        if raw[:4] != b"ZLIB" or len(raw) < 12:
            raise TargetError(f"{path}: {header.name} has a bad compression header")
        return raw[12:], int.from_bytes(raw[4:12], "big")
    if len(raw) < _CHDR.size:
        raise TargetError(f"{path}: {header.name} has a truncated compression header")
    ch_type, _reserved, ch_size, _align = _CHDR.unpack_from(raw)
    if ch_type != ELFCOMPRESS_ZLIB:
        raise Unsupported(f"{path}: {header.name} uses compression type {ch_type}")
    return raw[_CHDR.size :], ch_size


# --- separate debug files ---------------------------------------------------------------


def debuglink(sections: ElfSections) -> tuple[str, int] | None:
    """(file name, CRC32) of the `.gnu_debuglink` section, if any."""
    data = sections.get(".gnu_debuglink")
    end = data.find(b"\0")
    if end <= 0:
        return None
    crc_at = (end + 4) & ~3  # the CRC follows the name, 4-byte aligned
    if crc_at + 4 > len(data):
        return None
    (crc,) = struct.unpack_from("<I", data, crc_at)
    return data[:end].decode("utf-8", "surrogateescape"), crc


def _file_crc(path: str) -> int:
    crc = 0
    with open(path, "rb") as stream:
        while chunk := stream.read(1 << 20):
            crc = zlib.crc32(chunk, crc)
    return crc


def _has_dwarf(sections: ElfSections) -> bool:
    return sections.has(".debug_line") or sections.has(".debug_info")


# The copy of a file the target holds (a stub's `target:` files), None where it has none
TargetFetch = Callable[[str], str | None]


def find_debug_file(
    main: ElfSections, build_id: str | None, debug_dirs: Iterable[str] = DEFAULT_DEBUG_DIRS,
    target: TargetFetch | None = None,
) -> ElfSections | None:
    """The separate debug file of `main` by build id, then by .gnu_debuglink (CRC checked),
    looked up the way gdb does; None when there is none with DWARF in it. `target`: `main`
    is the target's file, so gdb's sysroot `target:` is tried for its build id too."""
    dirs = list(debug_dirs)
    candidates: list[tuple[str, int | None]] = []
    if build_id and len(build_id) > 2:
        for d in dirs:
            by_id = os.path.join(d, ".build-id", build_id[:2], build_id[2:] + ".debug")
            candidates.append((by_id, None))
            if target is not None and not os.path.isfile(by_id):  # gdb: then the sysroot's
                copy = target(by_id)
                if copy is not None:
                    candidates.append((copy, None))
    link = debuglink(main)
    if link is not None:
        name, crc = link
        here = os.path.dirname(os.path.realpath(main.path))
        candidates.append((os.path.join(here, name), crc))
        candidates.append((os.path.join(here, ".debug", name), crc))
        for d in dirs:
            candidates.append((os.path.join(d, here.lstrip("/"), name), crc))
    main_real = os.path.realpath(main.path)
    for path, expected_crc in candidates:
        if not os.path.isfile(path) or os.path.realpath(path) == main_real:
            continue
        try:
            if expected_crc is not None and _file_crc(path) != expected_crc:
                log.info("ignoring %s: its CRC does not match the debug link", path)
                continue
            found = ElfSections(path)
        except (OSError, TargetError, Unsupported) as exc:
            log.info("ignoring debug file %s: %s", path, exc)
            continue
        if _has_dwarf(found):
            log.debug("separate debug info for %s in %s", main.path, path)
            return found
    return None


def open_dwarf(
    path: str, build_id: str | None, debug_dirs: Iterable[str] = DEFAULT_DEBUG_DIRS,
    target: TargetFetch | None = None,
) -> tuple[ElfSections, ElfSections] | None:
    """(main file's sections, the sections holding its DWARF), or None without DWARF."""
    main = ElfSections(path)
    if main.has(".debug_line") and main.has(".debug_info"):
        return main, main
    separate = find_debug_file(main, build_id, debug_dirs, target)
    if separate is not None:
        return main, separate
    if _has_dwarf(main):
        return main, main
    return None
