"""A library's compressed .debug_info kept inflated in the cache, for the next search.

`break NAME` searches the .debug_info of each library whose symbol table lacks NAME for
its mentions (mentions.py), once per name and library. Debian's debug files compress it:
a session of a program never seen (libc's index cached, but no answer kept for NAME)
inflated libc's 2.3 MB into 5.8 MB for that search on the tracer thread, 45-55 ms of its
first stop, almost all zlib's. The first search of a section inflates it a window at a
time as before and writes each window to a partial file of the cache directory, renamed
at its end to `KEY-inflated_debug_info.vN.idx` (KEY: the library's cache key, so the file
is part of its entry: counted under the bound, evicted and cleared with it). Later
searches read that file a window at a time and search its bytes (3 ms for libc's CRC
check). The session's reads of a unit far into the section read it there too, rather than
inflate the section up to it (sections.py: a first stop in libc's futex wait, 1.9 MB).
A first session writes the files of the libraries its program will load ahead, in a
thread, while it builds the program's index (indexahead.py: `promise`, `inflate_ahead`):
their readers wait for a file promised, and search it rather than inflate the section.

The other compressed DWARF sections a session reads (`keeps_whole`: the abbreviations, line
programs, location and range lists, strings) are kept too, whole, by the first session that
reads one (`keep_whole`, sections.py: inflated whole then, rather than as far as read) and
read from there by later ones from their first read: a first stop of 1,000 threads in
libc's futex wait inflated 0.4-1 MB of each of libc's, 25-30 ms of its -thread-info.

Trust: a header with magic, version, the inflated size, the compressed section's size and
the CRC-32 of the bytes; a file short, damaged, of another version or whose sizes differ
from the section's is ignored (logged), and the section inflated as before. Writing is
best effort: a directory that refuses it leaves the search as it was.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import weakref
import zlib

from aliceserver.debuggers.symbols.dwarf.bytesearch import FileWindows
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.inflate import WindowInflate
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections

log = logging.getLogger(__name__)

_MAGIC = b"ALICEINF"
_VERSION = 1
# magic, version, inflated size, the section's stored size, the file's size and mtime (ns),
# the CRC-32 of the inflated bytes
_HEADER = len(_MAGIC) + 4 + 8 + 8 + 8 + 8 + 4
_KEPT_SECTIONS = frozenset((".debug_info",))  # what the name searches read whole
# Kept whole when first read (their kept files are checked in under a millisecond)
_WHOLE_SECTIONS = frozenset((
    ".debug_abbrev", ".debug_addr", ".debug_aranges", ".debug_line", ".debug_line_str",
    ".debug_loc", ".debug_loclists", ".debug_ranges", ".debug_rnglists", ".debug_str",
    ".debug_str_offsets",
))  # fmt: skip

_keys: weakref.WeakKeyDictionary[ElfSections, tuple[IndexCache, str]] = weakref.WeakKeyDictionary()
# The same by the file's path, for its other readers (dies.py opens its own ElfSections):
# a kept file's header names the file it was inflated from (_identity), not only its path
_by_path: dict[str, tuple[IndexCache, str]] = {}
# Kept files being written ahead (indexahead.py), by path: their readers wait for them
_writing: dict[str, threading.Event] = {}
_writing_lock = threading.Lock()
_PATIENCE = 30.0  # seconds a reader waits for a file written ahead (~0.1 s for libc's)
# Bytes inflated, and compressed bytes read, at a time ahead: few GIL handoffs, 2.5 MB more
# peak (from a quarter as many compressed bytes: no less peak, slower, in 16 rounds)
_AHEAD_STEP = 1 << 20


def remember(sections: ElfSections, cache: IndexCache, key: str) -> None:
    """`sections` are the DWARF of the binary whose cache key is `key` in `cache`."""
    _keys[sections] = _by_path[sections.path] = (cache, key)


def path_for(cache: IndexCache, key: str, name: str) -> str:
    """Where section `name` of the binary of `key` is kept inflated."""
    return cache.path_for(f"{key}-inflated{name.replace('.', '_')}")


def _identity(sections: ElfSections, name: str) -> bytes:
    """What the header holds of the file read (the section's stored size, the file's size
    and mtime): a kept file of another file of this key is not trusted."""
    header = sections.header(name)
    stat = os.stat(sections.path)
    stored = header.size if header is not None else 0
    return b"".join(
        n.to_bytes(8, "little", signed=True) for n in (stored, stat.st_size, stat.st_mtime_ns)
    )


class KeptSection:
    """The inflated bytes of a section in a kept file, read a window at a time into one
    reused buffer (bytesearch.FileWindows), as a section stored plain is: mapped, a file
    cut short under the map would end the session (SIGBUS), and the pages read (libc's
    5.8 MB) stayed in the session's peak memory."""

    def __init__(self, windows: FileWindows, size: int) -> None:
        self._windows = windows
        self._size = size

    def read(self, offset: int, size: int) -> bytes | bytearray:
        """The bytes [offset, offset + size) of the section (fewer at its end); valid
        until the next read."""
        return self._windows.bytes_at(_HEADER + offset, min(size, self._size - offset))

    def close(self) -> None:
        self._windows.close()


def kept(sections: ElfSections, name: str, largest: int) -> KeptSection | None:
    """The inflated bytes of compressed section `name` kept by an earlier search, checked,
    to be read `largest` bytes at most at a time; None when there are none to trust."""
    found = _keys.get(sections) or _by_path.get(sections.path)
    if found is None or (name not in _KEPT_SECTIONS and name not in _WHOLE_SECTIONS):
        return None
    cache, key = found
    path = path_for(cache, key, name)
    with _writing_lock:
        writing = _writing.get(path)
    if writing is not None:  # (inflated ahead: read once written, not inflated twice)
        writing.wait(_PATIENCE)
    windows = None
    try:
        size, identity = sections.size(name), _identity(sections, name)
        length = os.stat(path).st_size
        chunk = max(largest, _HEADER)
        windows = FileWindows(path, 0, length, chunk)
        trusted = length >= _HEADER and _trusted(windows, chunk, length, size, identity)
    except FileNotFoundError:
        return None
    except (OSError, EOFError) as exc:
        log.info("cannot read inflated section %s: %s", path, exc)
        trusted = False
    if not trusted:
        if windows is not None:
            windows.close()
        cache.damaged(path, "not the inflated section it names")
        return None
    assert windows is not None
    try:
        os.utime(path)  # read lately: evicted last
    except OSError:
        pass
    log.debug("%s: %s read inflated from the cache", sections.path, name)
    return KeptSection(windows, size)


def _trusted(windows: FileWindows, chunk: int, length: int, size: int, identity: bytes) -> bool:
    """Whether the file read by `windows` (`length` bytes, `chunk` at a time) holds the
    `size` inflated bytes of the section `identity` names, whole: its header, then the
    CRC-32 of its bytes."""
    head = bytes(windows.bytes_at(0, _HEADER))
    if not (head.startswith(_MAGIC) and int.from_bytes(head[8:12], "little") == _VERSION
            and int.from_bytes(head[12:20], "little") == size == length - _HEADER
            and head[20:44] == identity):  # fmt: skip
        return False
    crc = 0
    for start in range(_HEADER, length, chunk):
        crc = zlib.crc32(windows.bytes_at(start, chunk), crc)
    return crc == int.from_bytes(head[44:48], "little")


class KeepingInflate:
    """A WindowInflate whose windows are written to the cache as they are read; whole
    (read to the end, in order), the file is renamed into place at `close`."""

    def __init__(self, stream: WindowInflate, cache: IndexCache, path: str, size: int,
                 identity: bytes, fd: int, partial: str) -> None:  # fmt: skip
        self._stream = stream
        self._cache = cache
        self._path = path
        self._size = size
        self._identity = identity
        self._fd = fd
        self._partial = partial
        self._done = 0  # inflated bytes written
        self._crc = 0

    def read(self, offset: int, size: int) -> bytearray:
        data = self._stream.read(offset, size)
        if self._fd >= 0 and offset <= self._done < offset + len(data):
            try:
                more = memoryview(data)[self._done - offset :]
                os.pwrite(self._fd, more, _HEADER + self._done)
                self._crc = zlib.crc32(more, self._crc)
                self._done += len(more)
            except OSError as exc:
                log.debug("cannot keep %s: %s", self._path, exc)
                self._drop()
        return data

    def close(self) -> None:
        if self._fd < 0:
            return
        if self._done != self._size:  # not read whole (an error, or the search stopped)
            self._drop()
            return
        try:
            head = (_MAGIC + _VERSION.to_bytes(4, "little") + self._size.to_bytes(8, "little")
                    + self._identity + self._crc.to_bytes(4, "little"))  # fmt: skip
            os.pwrite(self._fd, head, 0)
            os.close(self._fd)
            self._fd = -1
            os.replace(self._partial, self._path)  # whole or not at all, whoever else writes it
        except OSError as exc:
            log.debug("cannot keep %s: %s", self._path, exc)
            self._drop()
            return
        self._cache.written(self._path, _HEADER + self._size)

    def _drop(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        try:
            os.unlink(self._partial)
        except OSError:
            pass


def keeping(
    sections: ElfSections, name: str, stream: WindowInflate
) -> WindowInflate | KeepingInflate:
    """`stream` (the first search's windows of `name`), writing them to the cache as well
    where the binary's key is known and the directory takes them."""
    found = _keys.get(sections)
    if found is None or name not in _KEPT_SECTIONS or not found[0].writable:
        return stream
    cache, key = found
    try:
        size, identity = sections.size(name), _identity(sections, name)
        fd, partial = cache.partial_file()
    except OSError as exc:
        log.debug("cannot keep %s of %s inflated: %s", name, sections.path, exc)
        return stream
    path = path_for(cache, key, name)
    return KeepingInflate(stream, cache, path, size, identity, fd, partial)


def keeps_whole(name: str) -> bool:
    """Whether compressed section `name` is kept whole once read (`keep_whole`)."""
    return name in _WHOLE_SECTIONS


def can_keep(sections: ElfSections, name: str) -> bool:
    """Whether `keep_whole` would write section `name` of `sections` (its binary's key
    known, the directory taking writes)."""
    found = _keys.get(sections) or _by_path.get(sections.path)
    return found is not None and name in _WHOLE_SECTIONS and found[0].writable


def keep_whole(sections: ElfSections, name: str, data: bytes) -> None:
    """Write `data`, the inflated bytes of section `name` of `sections`, to its kept file
    for later sessions (best effort: a refusal is logged)."""
    found = _keys.get(sections) or _by_path.get(sections.path)
    if found is None or name not in _WHOLE_SECTIONS or not found[0].writable:
        return
    cache, key = found
    path = path_for(cache, key, name)
    try:
        identity = _identity(sections, name)
        fd, partial = cache.partial_file()
    except OSError as exc:
        log.debug("cannot keep %s of %s inflated: %s", name, sections.path, exc)
        return
    try:
        try:
            head = (_MAGIC + _VERSION.to_bytes(4, "little") + len(data).to_bytes(8, "little")
                    + identity + zlib.crc32(data).to_bytes(4, "little"))  # fmt: skip
            os.pwrite(fd, data, _HEADER)
            os.pwrite(fd, head, 0)
        finally:
            os.close(fd)
        os.replace(partial, path)  # whole or not at all, whoever else writes it
    except OSError as exc:
        log.debug("cannot keep %s: %s", path, exc)
        with contextlib.suppress(OSError):
            os.unlink(partial)
        return
    cache.written(path, _HEADER + len(data))


def promise(cache: IndexCache, key: str) -> str | None:
    """Mark the kept .debug_info of the binary of `key` as being written ahead (its
    readers wait for it, see `kept`); its path, or None when it is kept already or
    promised. Every promise must be `settle`d."""
    path = path_for(cache, key, ".debug_info")
    with _writing_lock:
        if path in _writing or os.path.exists(path):
            return None
        _writing[path] = threading.Event()
    return path


def settle(path: str) -> None:
    """The file promised at `path` is written, or will not be: its readers go on."""
    with _writing_lock:
        event = _writing.pop(path, None)
    if event is not None:
        event.set()


def inflate_ahead(sections: ElfSections, cache: IndexCache, key: str) -> bool:
    """Inflate the compressed .debug_info of `sections` (the binary of `key`) into its
    kept file now, _AHEAD_STEP bytes at a time; whether it was written."""
    remember(sections, cache, key)
    stream = sections.window_reader(".debug_info")
    if stream is None:  # stored plain (or read already): nothing to keep
        return False
    stream.widen(_AHEAD_STEP, _AHEAD_STEP)
    keeper = keeping(sections, ".debug_info", stream)
    if not isinstance(keeper, KeepingInflate):
        return False
    try:
        for offset in range(0, sections.size(".debug_info"), _AHEAD_STEP):
            keeper.read(offset, _AHEAD_STEP)
    finally:
        keeper.close()
    return os.path.exists(path_for(cache, key, ".debug_info"))
