"""The indexes of the libraries a program will load, built ahead in a child process while
the session builds the program's own.

A first session on a machine builds libc's, libm's and the loader's index name parts
(namepart.py) as they load, on the tracer thread, while the user waits for the first stop.
When the program's image appears (ImageLoading.load_image), the libraries it needs are
foreseen (needed.py) and those the cache has no index of, beyond those mapped already (the
loader: the session needs it at once, and it is small), are handed to a child process
(indexchild.py), which builds and stores them (cache.py writes a file whole or not at all,
whoever else writes it) and says so a line at a time. DebugInfo.load of a library in the
plan waits for the child's line on it, if the child has started its work, and then reads
the cache; a child that failed, or was not planned for it, leaves it to the session, as
before; one that has not yet imported its modules is killed (the libraries load together,
and the session builds them sooner than the child would). Once the child has told of
each planned library it is reaped (killed if it has not left yet: nothing is left to do).
The child first stores, as `KEY-libraries`, the program's libraries and their keys: a later
session whose libraries are all indexed checks that (a file read and a stat per library,
not needed.py's 2 ms) and starts no child.
Where the program was named on the command line, the child started with the server
(programahead.py) indexes the program first and then these libraries (`plan`: their keys):
the session claims it (`_claim`) and starts no other; the libraries it planned are
inflated ahead as below, even when it has indexed them all already.
Meanwhile a thread inflates the compressed .debug_info of the same libraries into the
cache (`_inflate_ahead`, inflatedcache.py), which the session's search of them for the
breakpoint's name (sectionprefetch.py) then reads: libc's 2.3 -> 5.8 MB, 40-50 ms of zlib,
then begins as the program's index is built, not after it.
Why a child process: the session's threads share one GIL and are pinned to one CPU
(affinity.py), and an index build holds the GIL; the child runs on the other CPU. So it
is started only when the load average leaves a CPU idle (`_spare_cpu`): on a busy
machine its start and imports cost the first stop more than they spare it (first ever
on CPython, 2 CPUs, paired medians of 12-16 interleaved rounds without the child against
the build with it: wall 0.87x, 0.80x and 0.89x, CPU 0.79x, 0.79x and 0.83x at load 4.7-5,
3.3-4.7 and 5.2-6.6; at load 2.6-2.8, CPU 0.85x, wall 1.05x).
Measured (bench/first_stop.py, CPython, first ever, 2 CPUs, interleaved rounds with the
build before and gdb): libm's and libc's name parts took 20-30 ms of the tracer thread at
their load, their reads from the cache take 1-2 ms, and the child's lines are there before
the libraries load (the session does not wait); but the first stop's wall time moved by -15,
-2 and +19 ms (paired medians of 20, 12 and 20 rounds at load 1.0-1.2, 1.0-1.2, 1.6-2.4:
noise), since the stop then waits for sectionprefetch.py's thread searching libc's DWARF for
the name (40-90 ms after libc's load), with which the child's ~80 ms of CPU (its start
and imports, mostly) share the other CPU.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
import weakref
from collections.abc import Sequence

from aliceserver import programahead
from aliceserver.affinity import SERVER_CPUS
from aliceserver.aheadchild import AheadChild
from aliceserver.debuggers.symbols.dwarf import indexchild, inflatedcache
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.sections import open_dwarf
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.debuggers.symbols.needed import needed_libraries
from aliceserver.errors import AliceError

log = logging.getLogger(__name__)

_PATIENCE = 30.0  # seconds a library's load waits for the child (it takes ~0.1 s in all)
_MARKER = "-libraries"  # after the program's key: its libraries' list (indexchild.py)

# The child of each session (by its cache: one per engine), until its image changes
_running: weakref.WeakKeyDictionary[IndexCache, LibrariesAhead] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


class LibrariesAhead:
    """One child building the indexes of the libraries whose cache keys are `planned`, and
    what it said of each."""

    def __init__(self, planned: set[str], args: list[str],
                 spawned: tuple[int, int] | None = None, program: str | None = None) -> None:  # fmt: skip
        """`spawned`, `program`: the child started with the server (programahead.py), its
        pid and output, and the key of the program it indexes first; it plans the libraries
        itself (its `plan` line)."""
        self.program = program
        self._planned = planned if program is None else {program}
        self._planning = program is not None  # its plan to come
        self._said: dict[str, str] = {}  # key -> built, had, none or failed
        self._ready = False  # its modules imported: it is at work
        self._ended = False
        self._hurried = False
        self._heard_part = b""
        self._changed = threading.Condition()
        self._child = AheadChild(indexchild.MODULE, args, heard=self._heard, spawned=spawned)
        self._waiter = threading.Thread(target=self._wait, daemon=True, name="aliceserver-indexes")
        self._waiter.start()

    def plans(self, key: str) -> bool:
        """Whether the child has `key` in its plan (told, or given)."""
        with self._changed:
            return key in self._planned

    @property
    def failed(self) -> bool:
        """Whether the child ended without a word on its program."""
        with self._changed:
            return self._ended and self.program not in self._said

    def built(self, key: str) -> bool:
        """Whether the child built the index of `key` (waiting for it if it is at work on
        it, at most _PATIENCE seconds; then it is killed)."""
        with self._changed:
            if key not in self._planned and not self._planning:
                return False
            ready = self._ready or self._ended
            hurry, self._hurried = not self._hurried, True
        if not ready:  # still starting: the session indexes this library (and those loaded
            log.debug("the indexing child is not at work yet: the session indexes")
            self.close()  # with it) sooner than the child would
            return False
        if hurry:  # the session waits: its CPU is free for the child
            self._child.widen()
        deadline = time.monotonic() + _PATIENCE
        with self._changed:
            while (key not in self._said and not self._ended and time.monotonic() < deadline
                   and (self._planning or key in self._planned)):  # fmt: skip
                self._changed.wait(deadline - time.monotonic())
            said, ended = self._said.get(key), self._ended
            slow = said is None and not ended and (self._planning or key in self._planned)
            done = not self._planning and self._said.keys() >= self._planned
        if slow:
            log.debug("the indexing child took too long: the session indexes")
        if done or slow:
            self.close()  # (done: it has stored its list, and is leaving)
        log.debug("index %s from the indexing child: %s", key, said)
        return said == "built"

    def close(self) -> None:
        """Kill the child if it still runs; reap it."""
        self._child.close()
        self._waiter.join()

    def _heard(self, chunk: bytes) -> None:
        *lines, self._heard_part = (self._heard_part + chunk).split(b"\n")
        with self._changed:
            for line in lines:
                what, _space, key = line.decode(errors="replace").partition(" ")
                if what == "ready":
                    self._ready = True
                elif what == "plan":
                    self._planned.update(key.split())
                    self._planning = False
                elif key in self._planned:
                    self._said[key] = what
            self._changed.notify_all()

    def _wait(self) -> None:
        try:
            self._child.answer()
        finally:
            with self._changed:
                self._ended = True
                self._planning = False
                self._changed.notify_all()


def start(cache: IndexCache, program: ElfImage, loaded: Sequence[str]) -> None:
    """When the libraries `program` needs (beyond those `loaded`) are not all indexed in
    `cache`, a child building their indexes (the session's earlier one is killed; the one
    started with the server for `program` goes on: it indexes them)."""
    early = _running.get(cache) or _claim(cache)
    try:
        stat = os.stat(program.path)
        identity = (os.path.realpath(program.path), stat.st_mtime_ns, stat.st_size)
        key = IndexCache.key_for(program.build_id, program.path, stat.st_mtime_ns, stat.st_size)
    except OSError as error:
        log.debug("no libraries of %s indexed ahead: %s", program.path, error)
        close(cache)
        return
    if early is None or early.program != key or early.failed:
        close(cache)
        early = None
    if not cache.writable:
        return
    try:  # (the libraries the program's child indexes this session are inflated ahead too)
        if early is None and _all_indexed(cache, key + _MARKER, identity):
            return
        planned, entries, listed = _plan(cache, program, loaded, early)
    except (AliceError, OSError, ValueError) as error:
        log.debug("no libraries of %s indexed ahead: %s", program.path, error)
        return
    if not planned:  # all indexed (by sessions of other programs): listed for the next
        if early is None and os.access(cache.directory, os.W_OK):  # (read-only: no trouble)
            cache.store(key + _MARKER, identity, {"libraries": listed})
        return
    _inflate_ahead(cache, [path for wanted, path in entries if wanted])
    if early is not None:
        log.debug("%d libraries of %s to be indexed by a child process (started with the server)",
                  len(planned), program.path)  # fmt: skip
        return
    if not _spare_cpu():
        return
    log.debug("%d libraries of %s to be indexed by a child process", len(planned), program.path)
    args = indexchild.arguments(cache.directory, key + _MARKER, identity, entries)
    with _lock:  # (a child left at the server's end: aheadchild's exit hook)
        _running[cache] = LibrariesAhead(planned, args)


def _inflate_ahead(cache: IndexCache, paths: list[str]) -> None:
    """A thread inflating the compressed .debug_info of the libraries at `paths` into the
    cache (inflatedcache.py) while the session builds the program's index: the search of
    them for the breakpoint's name (sectionprefetch.py) then reads the files. zlib releases
    the GIL, and the thread inflates a MB at a time (few handoffs of the GIL)."""
    keys = {}
    for path in paths:
        try:
            image = ElfImage.load(path)
            stat = os.stat(os.path.realpath(path))
        except (AliceError, OSError):
            continue
        key = IndexCache.key_for(image.build_id, path, stat.st_mtime_ns, stat.st_size)
        promised = inflatedcache.promise(cache, key)
        if promised is not None:
            keys[path] = (image.build_id, key, promised)
    if not keys:
        return
    try:
        threading.Thread(target=_inflate, args=(cache, keys), daemon=True,
                         name="aliceserver-inflate").start()  # fmt: skip
    except RuntimeError as error:  # (no thread to be had: the searches inflate, as before)
        log.debug("no thread inflating ahead: %s", error)
        for _build_id, _key, promised in keys.values():
            inflatedcache.settle(promised)


def _inflate(cache: IndexCache, keys: dict[str, tuple[str | None, str, str]]) -> None:
    with contextlib.suppress(OSError):  # not only the tracer's CPU (a container may forbid it)
        os.sched_setaffinity(0, SERVER_CPUS)
    for path, (build_id, key, promised) in keys.items():
        try:
            started = time.perf_counter()
            opened = open_dwarf(path, build_id)
            if opened is not None and inflatedcache.inflate_ahead(opened[1], cache, key):
                log.debug("debug info of %s inflated ahead in %.3f s", path,
                          time.perf_counter() - started)  # fmt: skip
        except Exception as error:  # noqa: BLE001 - its search inflates it, as before
            log.debug("debug info of %s not inflated ahead: %s", path, error)
        finally:
            inflatedcache.settle(promised)


def _spare_cpu() -> bool:
    """Whether a CPU of the session's is idle for the child: the last minute's load
    average leaves one. On a busy machine the child's start and imports (~80 ms of CPU
    under load) take more than the 20-30 ms of name parts they spare the tracer thread."""
    try:
        return os.getloadavg()[0] + 1 <= len(SERVER_CPUS)
    except OSError:  # (no load average known: as on an idle machine)
        return True


def built_ahead(cache: IndexCache, key: str) -> bool:
    """Whether this session's child built the index of `key` (waited for; see `built`)."""
    ahead = _running.get(cache) or _claim(cache)
    return ahead is not None and ahead.built(key)


def program_ahead(cache: IndexCache, key: str) -> bool:
    """Whether the child started with the server indexes (or indexed) the program of `key`
    for this session: a program this session is the first to see."""
    ahead = _running.get(cache) or _claim(cache)
    return ahead is not None and ahead.program == key


def _claim(cache: IndexCache) -> LibrariesAhead | None:
    """The child started with the server for this cache (programahead.py), now this
    session's."""
    claimed = programahead.claim(cache.directory)
    if claimed is None:
        return None
    pid, read_end, key = claimed
    log.debug("the index of %s comes from the child started with the server", key)
    with _lock:
        ahead = _running[cache] = LibrariesAhead(set(), [], (pid, read_end), key)
    return ahead


def close(cache: IndexCache) -> None:
    """Kill and reap the child of the session of `cache`, if any."""
    with _lock:
        ahead = _running.pop(cache, None)
    if ahead is not None:
        ahead.close()


def _all_indexed(cache: IndexCache, marker: str, identity: tuple[str, int, int]) -> bool:
    """Whether the libraries listed under `marker` are the same files as then, and each
    has an index in the cache (or had no DWARF)."""
    payload = cache.load(marker, identity)
    if payload is None:
        return False
    try:
        for path, mtime_ns, size, key in payload["libraries"]:
            stat = os.stat(path)
            if (stat.st_mtime_ns, stat.st_size) != (mtime_ns, size):
                return False
            if key and not os.path.exists(cache.path_for(key)):
                return False
    except (OSError, KeyError, TypeError, ValueError):  # (not a list of ours: rebuilt)
        return False
    return True


def _plan(
    cache: IndexCache, program: ElfImage, loaded: Sequence[str], early: LibrariesAhead | None
) -> tuple[set[str], list[tuple[bool, str]], list[tuple[str, int, int, str]]]:
    """(the keys of the libraries to index, the child's entries: every library, in the
    loader's order, each with whether it is to be indexed; the marker's list of them).
    `early`: the program's child, whose planned libraries are to index (it may have)."""
    skip = {os.path.realpath(path) for path in loaded}
    planned: set[str] = set()
    entries = []
    listed = []
    for path in needed_libraries(program):
        real = os.path.realpath(path)
        try:
            image = ElfImage.load(path)
            stat = os.stat(real)
        except (AliceError, OSError):
            continue
        key = IndexCache.key_for(image.build_id, path, stat.st_mtime_ns, stat.st_size)
        wanted = real not in skip and (
            not os.path.exists(cache.path_for(key)) or (early is not None and early.plans(key))
        )
        if wanted:
            planned.add(key)
        entries.append((wanted, path))
        listed.append((path, stat.st_mtime_ns, stat.st_size, key))
    return planned, entries, listed
