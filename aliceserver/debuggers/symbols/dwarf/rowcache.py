"""Decoded line rows kept on disk beside the index, so that a later session reads a unit's
rows instead of running its line program again (CPython's ceval.c: about 10 ms to decode
in Python, well under 1 ms to read back); and, the same way, a unit's top-level code
scopes (coderanges.unit_scopes: 3 ms for one of CPython's units, read back in 0.1 ms),
which every first stop needs for its frame's unit and its caller's.

One file per (binary, line program) under `<index directory>/rows/`, holding LineRows'
arrays as raw bytes behind a header that names the binary's identity (the index's), the
line program, the row and sequence counts, the arrays' item sizes and a CRC-32 of the
body; a unit's scopes likewise, one file per (binary, unit) holding one flat array. A file that is short, damaged, of another format or of another build is ignored and
rewritten. The whole cache directory is kept under one size bound (cachedir.py), and
trouble is reported once through the index cache that owns this one. Every failure to
read or write only means "not cached".
"""

from __future__ import annotations

import logging
import os
import struct
import zlib
from array import array
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, TypeVar

try:  # as random.py does: hashlib loads OpenSSL (2 ms, 3.4 MB resident) for sha256
    from _sha2 import sha256  # type: ignore[import-not-found, unused-ignore]  # 3.12+
except ImportError:
    try:
        from _sha256 import sha256  # type: ignore[import-not-found, no-redef, unused-ignore]
    except ImportError:
        from hashlib import sha256  # type: ignore[assignment, unused-ignore]

from aliceserver.debuggers.symbols.dwarf.cache import IndexCache, read_cache_file
from aliceserver.debuggers.symbols.dwarf.lines import LineRows

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.coderanges import Scope

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
MIN_PROGRAM = 2048  # bytes of line program below which decoding beats a file read
_MAGIC = b"ALICEROW"
# magic, version, identity digest, line program offset, rows, sequences, item sizes of
# address/file/line/column/flags/sequence, CRC-32 of the body
_HEADER = struct.Struct("<8sI16sQQQ6BI")
_COLUMNS = ("address", "file", "line", "column", "flags")
Decoded = TypeVar("Decoded")
SCOPES_VERSION = 1
MIN_UNIT = 32768  # bytes of .debug_info below which walking a unit beats a file read
_SCOPES_MAGIC = b"ALICESCO"
# magic, version, identity digest, unit offset, count of the body's items, CRC-32 of the body
_SCOPES_HEADER = struct.Struct("<8sI16sQQI")


class RowCache:
    """The stored rows of one binary's line programs (safe between threads and processes:
    files are replaced atomically)."""

    def __init__(self, cache: IndexCache, key: str, identity: Hashable) -> None:
        self.cache = cache
        self.directory = cache.rows_directory
        self._prefix = "".join(c for c in key if c.isalnum() or c in "-_")
        self._digest = sha256(repr(identity).encode()).digest()[:16]

    def path_for(self, stmt: int) -> str:
        return os.path.join(self.directory, f"{self._prefix}-{stmt:x}.v{FORMAT_VERSION}.rows")

    def load(self, stmt: int) -> LineRows | None:
        """The rows stored for line program `stmt` of this build, else None."""
        return self._read(self.path_for(stmt), "line rows cache", lambda data: self._decode(data, stmt))

    def store(self, stmt: int, rows: LineRows) -> None:
        """Write the rows of line program `stmt` (best effort: failures are logged)."""
        path = self.path_for(stmt)
        if not self.cache.writable:
            return
        body = b"".join(getattr(rows, name).tobytes() for name in _COLUMNS)
        flat = array("Q", [value for sequence in rows.sequences for value in sequence])
        body += flat.tobytes()
        sizes = [getattr(rows, name).itemsize for name in _COLUMNS] + [flat.itemsize]
        header = _HEADER.pack(_MAGIC, FORMAT_VERSION, self._digest, stmt, len(rows),
                              len(rows.sequences), *sizes, zlib.crc32(body))  # fmt: skip
        self._write(path, header + body)

    def scopes_path(self, unit: int) -> str:
        return os.path.join(self.directory, f"{self._prefix}-u{unit:x}.v{SCOPES_VERSION}.scopes")

    def load_scopes(self, unit: int) -> list[Scope] | None:
        """The scopes stored for the unit at .debug_info offset `unit`, else None."""
        return self._read(self.scopes_path(unit), "unit scopes cache", lambda data: self._decode_scopes(data, unit))

    def _read(self, path: str, what: str, decode: Callable[[bytes], Decoded | str]) -> Decoded | None:
        """What `decode` makes of the file at `path`, else None (it says why: another build
        is no trouble to warn of, a damaged file is)."""
        data = read_cache_file(path, what)
        if data is None:
            return None
        found = decode(data)
        if isinstance(found, str):
            if found == "another build":  # rebuilt, or touched
                log.debug("%s %s is for another build", what, path)
            else:
                self.cache.damaged(path, found)
            return None
        _touch(path)
        return found

    def store_scopes(self, unit: int, scopes: list[Scope]) -> None:
        """Write the scopes of the unit at `unit`: each its path's length, the path, and
        its span (-1, -1: none read)."""
        flat = array("q")
        for path, span in scopes:
            flat.append(len(path))
            flat.extend(path)
            flat.extend(span if span is not None else (-1, -1))
        body = flat.tobytes()
        header = _SCOPES_HEADER.pack(_SCOPES_MAGIC, SCOPES_VERSION, self._digest, unit, len(flat), zlib.crc32(body))
        self._write(self.scopes_path(unit), header + body)

    def _write(self, path: str, data: bytes) -> None:
        """Replace the file at `path` with `data` (best effort: failures are logged)."""
        if not self.cache.writable:
            return
        partial = f"{path}.{os.getpid()}.{id(data):x}.tmp"
        try:
            os.makedirs(self.directory, mode=0o700, exist_ok=True)
            with open(partial, "wb") as stream:
                stream.write(data)
            os.replace(partial, path)
        except OSError as exc:
            self.cache.write_failed(path, exc)
            try:
                os.unlink(partial)
            except OSError:
                pass
            return
        self.cache.written(path, len(data))

    def _decode_scopes(self, data: bytes, unit: int) -> list[Scope] | str:
        if len(data) < _SCOPES_HEADER.size or not data.startswith(_SCOPES_MAGIC):
            return "not a unit scopes cache file" if data else "empty"
        _magic, version, digest, offset, count, crc = _SCOPES_HEADER.unpack_from(data)
        if version != SCOPES_VERSION:
            return f"format version {version}, not {SCOPES_VERSION}"
        if digest != self._digest:
            return "another build"
        body = memoryview(data)[_SCOPES_HEADER.size :]
        if offset != unit or len(body) != count * 8 or zlib.crc32(body) != crc:
            return "damaged"
        flat = array("q")
        flat.frombytes(body)
        scopes: list[Scope] = []
        at = 0
        while at < len(flat):
            length = flat[at]
            end = at + 1 + length
            if length < 1 or end + 2 > len(flat):
                return "damaged"
            low, high = flat[end], flat[end + 1]
            scopes.append((tuple(flat[at + 1 : end]), None if low < 0 else (low, high)))
            at = end + 2
        return scopes

    def _decode(self, data: bytes, stmt: int) -> LineRows | str:
        """The rows, or why `data` holds none for this build's line program `stmt`."""
        if len(data) < _HEADER.size or not data.startswith(_MAGIC):
            return "not a line rows cache file" if data else "empty"
        magic, version, digest, offset, count, sequences, *sizes, crc = _HEADER.unpack_from(data)
        rows = LineRows()
        expected = [getattr(rows, name).itemsize for name in _COLUMNS] + [8]
        if version != FORMAT_VERSION:
            return f"format version {version}, not {FORMAT_VERSION}"
        if digest != self._digest:
            return "another build"
        if (offset, sizes) != (stmt, expected):
            return "damaged"
        body = memoryview(data)[_HEADER.size :]
        if len(body) != count * sum(expected[:-1]) + sequences * 4 * 8:
            return "truncated" if len(body) < count * sum(expected[:-1]) else "damaged"
        if zlib.crc32(body) != crc:
            return "damaged"
        at = 0
        for name, size in zip(_COLUMNS, expected, strict=False):
            getattr(rows, name).frombytes(body[at : at + count * size])
            at += count * size
        flat = array("Q")
        flat.frombytes(body[at:])
        rows.sequences = [(flat[i], flat[i + 1], flat[i + 2], flat[i + 3])
                          for i in range(0, len(flat), 4)]  # fmt: skip
        if any(not first <= last < count for first, last, _low, _high in rows.sequences):
            return "damaged"
        return rows


def _touch(path: str) -> None:
    try:
        os.utime(path)  # read lately: evicted last
    except OSError:
        pass
