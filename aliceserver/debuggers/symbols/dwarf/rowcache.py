"""Decoded line rows kept on disk beside the index, so that a later session reads a unit's
rows instead of running its line program again (CPython's ceval.c: about 10 ms to decode
in Python, well under 1 ms to read back).

One file per (binary, line program) under `<index directory>/rows/`, holding LineRows'
arrays as raw bytes behind a header that names the binary's identity (the index's), the
line program, the row and sequence counts, the arrays' item sizes and a CRC-32 of the
body. A file that is short, damaged, of another format or of another build is ignored and
rewritten. The directory is kept under a size bound by removing the files read or written
longest ago. Every failure to read or write only means "not cached".
"""

from __future__ import annotations

import hashlib
import logging
import os
import struct
import zlib
from array import array
from collections.abc import Hashable

from aliceserver.debuggers.symbols.dwarf.cache import read_cache_file
from aliceserver.debuggers.symbols.dwarf.lines import LineRows

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
DEFAULT_LIMIT = 256 << 20  # bytes of the whole rows directory
MIN_PROGRAM = 2048  # bytes of line program below which decoding beats a file read
_MAGIC = b"ALICEROW"
# magic, version, identity digest, line program offset, rows, sequences, item sizes of
# address/file/line/column/flags/sequence, CRC-32 of the body
_HEADER = struct.Struct("<8sI16sQQQ6BI")
_COLUMNS = ("address", "file", "line", "column", "flags")


class RowCache:
    """The stored rows of one binary's line programs (safe between threads and processes:
    files are replaced atomically)."""

    def __init__(self, directory: str, key: str, identity: Hashable,
                 limit: int = DEFAULT_LIMIT) -> None:  # fmt: skip
        self.directory = directory
        self.limit = limit
        self._prefix = "".join(c for c in key if c.isalnum() or c in "-_")
        self._digest = hashlib.sha256(repr(identity).encode()).digest()[:16]

    def path_for(self, stmt: int) -> str:
        return os.path.join(self.directory, f"{self._prefix}-{stmt:x}.v{FORMAT_VERSION}.rows")

    def load(self, stmt: int) -> LineRows | None:
        """The rows stored for line program `stmt` of this build, else None."""
        path = self.path_for(stmt)
        data = read_cache_file(path, "line rows cache")
        if data is None:
            return None
        rows = self._decode(data, stmt)
        if rows is None:
            log.info("ignoring line rows cache %s: damaged or of another build", path)
            return None
        try:
            os.utime(path)  # read lately: evicted last
        except OSError:
            pass
        return rows

    def store(self, stmt: int, rows: LineRows) -> None:
        """Write the rows of line program `stmt` (best effort: failures are logged)."""
        path = self.path_for(stmt)
        body = b"".join(getattr(rows, name).tobytes() for name in _COLUMNS)
        flat = array("Q", [value for sequence in rows.sequences for value in sequence])
        body += flat.tobytes()
        sizes = [getattr(rows, name).itemsize for name in _COLUMNS] + [flat.itemsize]
        header = _HEADER.pack(_MAGIC, FORMAT_VERSION, self._digest, stmt, len(rows),
                              len(rows.sequences), *sizes, zlib.crc32(body))  # fmt: skip
        partial = f"{path}.{os.getpid()}.{id(rows):x}.tmp"
        try:
            os.makedirs(self.directory, mode=0o700, exist_ok=True)
            with open(partial, "wb") as stream:
                stream.write(header)
                stream.write(body)
            os.replace(partial, path)
        except OSError as exc:
            log.info("cannot write line rows cache %s: %s", path, exc)
            try:
                os.unlink(partial)
            except OSError:
                pass
            return
        self._evict()

    def _decode(self, data: bytes, stmt: int) -> LineRows | None:
        if len(data) < _HEADER.size:
            return None
        magic, version, digest, offset, count, sequences, *sizes, crc = _HEADER.unpack_from(data)
        rows = LineRows()
        expected = [getattr(rows, name).itemsize for name in _COLUMNS] + [8]
        if (magic, version, digest, offset, sizes) != (_MAGIC, FORMAT_VERSION, self._digest,
                                                      stmt, expected):  # fmt: skip
            return None
        body = memoryview(data)[_HEADER.size :]
        if len(body) != count * sum(expected[:-1]) + sequences * 4 * 8 or zlib.crc32(body) != crc:
            return None
        at = 0
        for name, size in zip(_COLUMNS, expected, strict=False):
            getattr(rows, name).frombytes(body[at : at + count * size])
            at += count * size
        flat = array("Q")
        flat.frombytes(body[at:])
        rows.sequences = [(flat[i], flat[i + 1], flat[i + 2], flat[i + 3])
                          for i in range(0, len(flat), 4)]  # fmt: skip
        if any(not first <= last < count for first, last, _low, _high in rows.sequences):
            return None
        return rows

    def _evict(self) -> None:
        """Remove the files used longest ago while the directory is over its bound."""
        try:
            entries = [(e.stat().st_mtime_ns, e.stat().st_size, e.path)
                       for e in os.scandir(self.directory) if e.name.endswith(".rows")]  # fmt: skip
        except OSError:
            return
        total = sum(size for _mtime, size, _path in entries)
        for _mtime, size, path in sorted(entries):
            if total <= self.limit:
                break
            try:
                os.unlink(path)
                total -= size
            except OSError:
                pass
