"""A compressed section inflated only as far as reads have needed, or a window at a time.

Debian's separate debug files (libc6-dbg, every -dbgsym package) compress their sections:
inflating libc's whole .debug_info takes 30 ms to read one unit of a stack's last frames,
which lies in its first 30 kB. The stream is inflated in steps up to the end of what
is asked and the bytes so far are kept; a read beyond goes on from there. The compressed
bytes are read from the file as the steps need them (libc's .debug_info is 2.3 MB of
them, held whole for a 64-byte read before).

A byte search over a whole section (sectionsearch.py) reads it once, in order: there
WindowInflate keeps only the window being searched (libc's .debug_info inflated whole
is 5.8 MB).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable

from aliceserver.errors import TargetError

_STEP = 64 << 10  # compressed bytes fed at a time

Stream = bytes | Callable[[int, int], bytes]  # the zlib stream, or read(offset, size) of it


class _Inflater:
    """One zlib stream of known compressed and inflated sizes, inflated in steps."""

    def __init__(self, where: str, stream: Stream, size: int,
                 stream_size: int | None = None) -> None:  # fmt: skip
        self._where = where  # "path: section", for errors
        self._stream = stream
        self._stream_size = len(stream) if isinstance(stream, bytes) else stream_size or 0
        self._fed = 0
        self._size = size
        self._inflater = zlib.decompressobj()
        self._step = self._feed = _STEP

    def widen(self, step: int, feed: int) -> None:
        """Inflate `step` bytes at a time, from `feed` compressed bytes read at a time:
        each read and zlib call releases the GIL, and a thread taking it back from a busy
        one waits up to its switch interval (5 ms): a thread inflating ahead
        (indexahead.py) does few of them."""
        self._step, self._feed = step, feed

    def _chunk(self, size: int) -> bytes:
        """The next `size` compressed bytes (fewer at the stream's end)."""
        size = min(size, self._stream_size - self._fed)
        if size <= 0:
            return b""
        at, self._fed = self._fed, self._fed + size
        stream = self._stream
        return stream[at : at + size] if isinstance(stream, bytes) else stream(at, size)

    def _grow(self, data: bytearray, end: int, limit: int) -> None:
        """Inflate onto `data` until it holds `end` bytes (or the stream ends); `limit`:
        at most that many bytes in all (a longer stream shows as one byte too many)."""
        try:
            while len(data) < end:
                chunk = self._inflater.unconsumed_tail or self._chunk(self._feed)
                # 64 kB out at a time, appended: a window's worth at once was a 2 MB
                # temporary each, which fragmented the heap (b"": a copy begun)
                more = self._inflater.decompress(chunk, min(limit - len(data), self._step))
                if not chunk and not more:
                    break
                data += more
        except zlib.error as exc:
            raise TargetError(f"{self._where}: cannot decompress: {exc}") from exc

    def _bad_size(self, got: int) -> TargetError:
        return TargetError(f"{self._where}: decompresses to {got} bytes, "
                           f"not the {self._size} its header declares")  # fmt: skip


class PartialInflate(_Inflater):
    """The first bytes of one zlib stream of known inflated size, grown on demand.

    Not thread-safe: its owner (sections.ElfSections) holds its lock around it."""

    def __init__(self, where: str, stream: Stream, size: int,
                 stream_size: int | None = None) -> None:  # fmt: skip
        super().__init__(where, stream, size, stream_size)
        self._data = bytearray()

    @property
    def complete(self) -> bool:
        return len(self._data) >= self._size

    @property
    def inflated(self) -> int:
        """How many bytes are inflated so far."""
        return len(self._data)

    def prefix(self, end: int) -> bytearray:
        """At least the first min(end, size) inflated bytes (the buffer itself, not a copy)."""
        end = min(end, self._size)
        self._grow(self._data, end, self._size + 1)
        if len(self._data) < end or len(self._data) > self._size:
            raise self._bad_size(len(self._data))
        return self._data

    def whole(self) -> bytes:
        """Every inflated byte; TargetError when the stream is not of its declared size."""
        data = bytes(self.prefix(self._size))
        try:
            rest = self._inflater.unconsumed_tail + self._chunk(self._stream_size)
            extra = self._inflater.decompress(rest, 1)
        except zlib.error as exc:
            raise TargetError(f"{self._where}: cannot decompress: {exc}") from exc
        if extra:
            raise TargetError(f"{self._where}: decompresses to more than the {self._size} "
                              "bytes its header declares")  # fmt: skip
        return data


class WindowInflate(_Inflater):
    """Windows of one zlib stream read in order of their start: only the last window is
    kept. Not thread-safe (one search reads it)."""

    def __init__(self, where: str, stream: Stream, size: int,
                 stream_size: int | None = None) -> None:  # fmt: skip
        super().__init__(where, stream, size, stream_size)
        self._base = 0  # where _data starts in the inflated bytes
        self._data = bytearray()

    def read(self, offset: int, size: int) -> bytearray:
        """The inflated bytes [offset, offset + size) (fewer at the end), `offset` at or
        past the last read's: the buffer itself, valid until the next read."""
        if offset < self._base:
            raise ValueError("WindowInflate reads go forward only")
        del self._data[: offset - self._base]
        self._base = offset
        end = min(offset + size, self._size)
        self._grow(self._data, end - offset, end - offset)
        if self._base + len(self._data) < end:
            raise self._bad_size(self._base + len(self._data))
        if end == self._size:  # the last window: nothing may follow
            try:
                rest = self._inflater.unconsumed_tail + self._chunk(_STEP)
                extra = self._inflater.decompress(rest, 1)
            except zlib.error as exc:
                raise TargetError(f"{self._where}: cannot decompress: {exc}") from exc
            if extra:
                raise self._bad_size(self._size + 1)
        return self._data
