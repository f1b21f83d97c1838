"""A core's address space: the bytes the core holds, then the files it maps, then zeros.

gdb 13's core target reads memory in this order (corelow.c xfer_partial): core segments
with contents (PT_LOAD's first p_filesz bytes), then the file-backed mappings of NT_FILE
(the text and read-only data the kernel leaves out of a core), then the rest of each
PT_LOAD up to p_memsz, which reads as zeros. An address in none of them cannot be read."""

from __future__ import annotations

import bisect
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from aliceserver.debuggers.core.errors import CoreMemoryError

# Reads `size` bytes at `offset` of a region's source; fewer (or none) at its end.
Source = Callable[[int, int], bytes]


@dataclass(frozen=True, slots=True)
class Region:
    """[start, end) of the address space, read from `source` at `offset + (address - start)`."""

    start: int
    end: int
    offset: int
    source: Source


class _Layer:
    """Disjoint regions of one kind, sorted, found by bisection."""

    def __init__(self, regions: Sequence[Region]) -> None:
        self.regions = sorted((r for r in regions if r.end > r.start), key=lambda r: r.start)
        self._starts = [r.start for r in self.regions]

    def find(self, address: int) -> Region | None:
        index = bisect.bisect_right(self._starts, address) - 1
        if index >= 0 and address < self.regions[index].end:
            return self.regions[index]
        return None

    def next_start(self, address: int) -> int | None:
        """Where the first region after `address` starts."""
        index = bisect.bisect_right(self._starts, address)
        return self._starts[index] if index < len(self._starts) else None


class CoreMemory:
    """`read(address, size)` over layers tried in order; CoreMemoryError names the first
    address none of them holds."""

    def __init__(self, layers: Sequence[Sequence[Region]]) -> None:
        self._layers = [_Layer(regions) for regions in layers]

    def read(self, address: int, size: int) -> bytes:
        if size < 0 or address < 0 or address + size > 1 << 64:
            raise CoreMemoryError(address)
        out = bytearray()
        while len(out) < size:
            chunk = self._read_chunk(address + len(out), size - len(out))
            if not chunk:
                raise CoreMemoryError(address + len(out))
            out += chunk
        return bytes(out)

    def readable(self, address: int) -> bool:
        try:
            self.read(address, 1)
        except CoreMemoryError:
            return False
        return True

    def _read_chunk(self, address: int, size: int) -> bytes:
        for rank, layer in enumerate(self._layers):
            region = layer.find(address)
            if region is None:
                continue
            end = min(region.end, address + size)
            for better in self._layers[:rank]:  # stop where a layer tried first takes over
                start = better.next_start(address)
                if start is not None:
                    end = min(end, start)
            data = region.source(region.offset + address - region.start, end - address)
            if data:
                return data
        return b""


class FileSources:
    """Opened on first use and kept open: the files a core maps, and the core itself.
    A file that cannot be opened reads as nothing (the next layer, or an error)."""

    def __init__(self) -> None:
        self._fds: dict[str, int | None] = {}

    def source(self, path: str) -> Source:
        def read(offset: int, size: int) -> bytes:
            fd = self._open(path)
            if fd is None:
                return b""
            try:
                return os.pread(fd, size, offset)
            except OSError:
                return b""

        return read

    def can_open(self, path: str) -> bool:
        return self._open(path) is not None

    def _open(self, path: str) -> int | None:
        if path not in self._fds:
            try:
                self._fds[path] = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                self._fds[path] = None
        return self._fds[path]

    def close(self) -> None:
        for fd in self._fds.values():
            if fd is not None:
                os.close(fd)
        self._fds.clear()


def zeros(_offset: int, size: int) -> bytes:
    return bytes(size)
