"""The cache directory as a whole: where it is, its one size bound, and its entries.

An entry is everything kept for one binary: its index files (`KEY.vN.idx`,
`KEY-names.vN.idx`...) and its line rows (`rows/KEY-STMT.vN.rows`), KEY being the
binary's cache key (cache.py). The whole directory, every format version included, is
kept under one bound by removing the files used longest ago (a read refreshes a file's
mtime: a binary's index, read at every start, outlives the rows of its units no longer
used). Only files named as ours are counted or removed, so that a cache directory given
by mistake as one holding other files loses none of them.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from aliceserver.regexes import compiled_later

ENV_DIRECTORY = "ALICESERVER_CACHE_DIR"
ENV_LIMIT = "ALICESERVER_CACHE_SIZE"  # bytes, or with a K, M or G suffix
DEFAULT_LIMIT = 1 << 30
STALE_PARTIAL = 3600  # seconds after which a partly written file is a dead writer's
# Seconds between sweeps of a directory by any process: a sweep lists every file (0.15 s
# for 48,000), too much for each session's first write. A session that writes 1/32 of the
# bound sweeps whenever it has.
SWEEP_EVERY = 600.0
_SWEPT = ".swept"  # its mtime: when the directory was last swept
_ENTRY_FILE = compiled_later(r"([bp]-[0-9a-z]+)[-.0-9a-z_]*\.v\d+\.(idx|rows|scopes)")
_PARTIAL_FILE = compiled_later(r"\.tmp-.*\.idx|[bp]-[0-9a-z]+.*\.(rows|scopes)\.\d+\.[0-9a-f]+\.tmp")
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def default_directory() -> str:
    """$ALICESERVER_CACHE_DIR, else `$XDG_CACHE_HOME/aliceserver/index`."""
    chosen = os.environ.get(ENV_DIRECTORY)
    if chosen:
        return os.path.abspath(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "aliceserver", "index")


def parse_size(text: str) -> int:
    """`1073741824`, `512M`, `2G` (ValueError when it is none of these)."""
    text = text.strip().upper().removesuffix("B")
    unit = text[-1:] if text[-1:] in _UNITS else ""
    return int(float(text[: len(text) - len(unit)]) * _UNITS[unit])


def default_limit() -> int:
    """$ALICESERVER_CACHE_SIZE when it is a size, else DEFAULT_LIMIT."""
    try:
        return parse_size(os.environ.get(ENV_LIMIT, "")) or DEFAULT_LIMIT
    except ValueError:
        return DEFAULT_LIMIT


@dataclass(slots=True)
class CacheEntry:
    key: str
    size: int = 0
    last_used: int = 0  # ns: the newest mtime of its files
    paths: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class CacheUsage:
    directory: str
    limit: int
    entries: tuple[CacheEntry, ...]  # most recently used first
    partial: int  # files being written, or left by a writer that died

    @property
    def size(self) -> int:
        return sum(entry.size for entry in self.entries)


class CacheDirectory:
    def __init__(self, directory: str, limit: int | None = None, sweep_every: float = SWEEP_EVERY) -> None:
        self.directory = directory
        self.limit = limit if limit is not None else default_limit()
        self.sweep_every = sweep_every
        self._unswept = 0  # bytes this session wrote since it last swept
        self._stamp_checked = False

    def note_written(self, path: str, size: int) -> None:
        """Sweep when this session wrote 1/32 of the bound since its last sweep, or, at its
        first write, when no process swept within `sweep_every` seconds."""
        self._unswept += size
        if self._unswept < self.limit // 32:
            if self._stamp_checked:
                return
            self._stamp_checked = True
            try:
                age = time.time() - os.stat(os.path.join(self.directory, _SWEPT)).st_mtime
            except OSError:
                age = float("inf")
            if age < self.sweep_every:
                return
        self._unswept = 0
        self._stamp_checked = True
        self.evict(keep=path)
        stamp = os.path.join(self.directory, _SWEPT)
        try:
            with open(stamp, "ab"):
                pass
            os.utime(stamp)
        except OSError:
            pass

    @property
    def rows_directory(self) -> str:
        return os.path.join(self.directory, "rows")

    def usage(self) -> CacheUsage:
        entries: dict[str, CacheEntry] = {}
        partial = 0
        for path, name, stat in self._files():
            matched = _ENTRY_FILE().fullmatch(name)
            if matched is None:
                partial += _PARTIAL_FILE().fullmatch(name) is not None
                continue
            entry = entries.setdefault(matched.group(1), CacheEntry(matched.group(1)))
            entry.size += stat.st_size
            entry.last_used = max(entry.last_used, stat.st_mtime_ns)
            entry.paths.append(path)
        ordered = sorted(entries.values(), key=lambda e: e.last_used, reverse=True)
        return CacheUsage(self.directory, self.limit, tuple(ordered), partial)

    def evict(self, keep: str | None = None) -> int:
        """Remove the files used longest ago (never `keep`, the one just written) while
        the directory is over its bound; how many bytes went. Partial files of writers
        dead for an hour go too. Safe while other processes read and write: a file
        removed under a reader is only a cache miss."""
        files = []
        now = time.time_ns()
        for path, name, stat in self._files():
            if _ENTRY_FILE().fullmatch(name):
                files.append((stat.st_mtime_ns, stat.st_size, path))
            elif _PARTIAL_FILE().fullmatch(name) and now - stat.st_mtime_ns > STALE_PARTIAL * 10**9:
                _unlink(path)
        total = sum(size for _mtime, size, _path in files)
        removed = 0
        for _mtime, size, path in sorted(files):
            if total - removed <= self.limit:
                break
            if path != keep and _unlink(path):
                removed += size
        return removed

    def remove(self, key: str) -> None:
        """Remove one entry (every file of it)."""
        for entry in self.usage().entries:
            if entry.key == key:
                for path in entry.paths:
                    _unlink(path)

    def clear(self) -> CacheUsage:
        """Remove every entry and partial file; what was removed."""
        usage = self.usage()
        for path, name, _stat in self._files():
            if _ENTRY_FILE().fullmatch(name) or _PARTIAL_FILE().fullmatch(name):
                _unlink(path)
        _unlink(os.path.join(self.directory, _SWEPT))
        try:
            os.rmdir(self.rows_directory)
        except OSError:
            pass
        return usage

    def _files(self) -> list[tuple[str, str, os.stat_result]]:
        found = []
        for directory in (self.directory, self.rows_directory):
            try:
                with os.scandir(directory) as scan:
                    for item in scan:
                        try:
                            if item.is_file(follow_symlinks=False):
                                found.append((item.path, item.name, item.stat(follow_symlinks=False)))
                        except OSError:
                            continue  # removed meanwhile
            except OSError:
                continue
        return found


def _unlink(path: str) -> bool:
    try:
        os.unlink(path)
    except OSError:
        return False  # removed by another process, or not ours to remove
    return True
