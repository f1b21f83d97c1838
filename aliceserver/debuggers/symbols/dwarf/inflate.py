"""A compressed section inflated only as far as reads have needed.

Debian's separate debug files (libc6-dbg, every -dbgsym package) compress their sections:
inflating libc's whole .debug_info takes 30 ms to read one unit of a stack's last frames,
which lies in its first 30 kB. The stream is inflated in steps up to the end of what
is asked and the bytes so far are kept; a read beyond goes on from there.
"""

from __future__ import annotations

import zlib

from aliceserver.errors import TargetError

_STEP = 64 << 10  # compressed bytes fed at a time


class PartialInflate:
    """The first bytes of one zlib stream of known inflated size, grown on demand.

    Not thread-safe: its owner (sections.ElfSections) holds its lock around it."""

    def __init__(self, where: str, stream: bytes, size: int) -> None:
        self._where = where  # "path: section", for errors
        self._stream = stream
        self._fed = 0
        self._size = size
        self._inflater = zlib.decompressobj()
        self._data = bytearray()

    @property
    def complete(self) -> bool:
        return len(self._data) >= self._size

    def prefix(self, end: int) -> bytearray:
        """At least the first min(end, size) inflated bytes (the buffer itself, not a copy)."""
        end = min(end, self._size)
        try:
            while len(self._data) < end:
                if self._inflater.unconsumed_tail:
                    chunk = self._inflater.unconsumed_tail
                elif self._fed < len(self._stream):
                    chunk = self._stream[self._fed : self._fed + _STEP]
                    self._fed += len(chunk)
                else:
                    break
                self._data += self._inflater.decompress(chunk, self._size + 1 - len(self._data))
        except zlib.error as exc:
            raise TargetError(f"{self._where}: cannot decompress: {exc}") from exc
        if len(self._data) < end or len(self._data) > self._size:
            raise TargetError(f"{self._where}: decompresses to {len(self._data)} bytes, "
                              f"not the {self._size} its header declares")  # fmt: skip
        return self._data

    def whole(self) -> bytes:
        """Every inflated byte; TargetError when the stream is not of its declared size."""
        data = bytes(self.prefix(self._size))
        try:
            extra = self._inflater.decompress(self._inflater.unconsumed_tail + self._stream[self._fed :], 1)
        except zlib.error as exc:
            raise TargetError(f"{self._where}: cannot decompress: {exc}") from exc
        if extra:
            raise TargetError(f"{self._where}: decompresses to more than the {self._size} "
                              "bytes its header declares")  # fmt: skip
        return data
