"""The compressed DWARF of the libraries a program will load, inflated ahead in a thread.

A first session on a machine builds libc's index when libc loads, and `break NAME` then
searches libc's DWARF for inlined copies of NAME: Debian's debug files compress it, and
inflating libc's .debug_info (5.8 MB) took 20-30 ms of a first stop on CPython while the
program waited. zlib releases the GIL while it inflates, so a thread does it on the other
core while the session builds the program's index and runs it: the libraries the program
will load are foreseen from its file (needed.py), opened as DebugInfo.load opens them, and
their sections inflated whole (ElfSections.inflate_ahead: a read of one meanwhile waits
for it rather than inflate it again). DebugInfo.load of such a library takes those
sections (`opened`). Only libraries without an index in the cache are done (a later
session's search for a name the cache does not answer inflates on demand, as before),
and at most _BOUND bytes. A foreseen library that does not load costs the thread's work
and its memory until the session's image changes. Not a process: a forked child's
copy-on-write faults slowed this process more than the child's work saved. The thread is
started from the tracer thread, which is pinned to one CPU (affinity.py), and would inherit
that: it unpins itself, else it inflated on the tracer's CPU (libc's 7 MB in 55 ms of the
first stop's wall instead of beside it).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Sequence

from aliceserver.affinity import SERVER_CPUS
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections, open_dwarf
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.debuggers.symbols.needed import needed_libraries
from aliceserver.errors import AliceError

log = logging.getLogger(__name__)

# What building a library's index and searching it for a name read whole
_SECTIONS = (".debug_info", ".debug_str", ".debug_line_str", ".debug_abbrev")
_BOUND = 256 << 20  # bytes inflated ahead at most

Opened = tuple[ElfSections, ElfSections]  # open_dwarf's answer: the file's, its DWARF's


class SectionPrefetch:
    """At most one thread per session's image (SourceSymbols), started by `start`."""

    def __init__(self, cache: IndexCache) -> None:
        self._cache = cache
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None
        self._planned: set[str] | None = None  # real paths, once the thread has looked
        self._opened: dict[str, tuple[Opened, str | None]] = {}  # real path -> (sections, build id)
        self._closed = False

    def start(self, program: ElfImage, loaded: Sequence[str], now: Sequence[ElfSections]) -> None:
        """Inflate `now` (sections being searched soon), then the libraries `program`
        needs beyond those `loaded` (once per session: later calls do nothing)."""
        if self._thread is not None:
            return
        skip = {os.path.realpath(path) for path in loaded}
        self._thread = threading.Thread(target=self._run, args=(program, skip, list(now)),
                                        daemon=True, name="aliceserver-prefetch")  # fmt: skip
        self._thread.start()

    def opened(self, path: str, build_id: str | None) -> Opened | None:
        """The sections of the library at `path` if the thread opened them, of this build
        (waiting while it looks for it), None otherwise; each is given once."""
        if self._thread is None:
            return None
        real = os.path.realpath(path)
        with self._changed:
            while self._planned is None:
                self._changed.wait()
            found, built = self._opened.pop(real, (None, None))
        if found is None or built != build_id:
            return None
        log.debug("debug info of %s opened ahead", path)
        return found

    def close(self) -> None:
        """Stop after the section being inflated; drop what was not taken."""
        with self._changed:
            self._closed = True
            self._opened.clear()

    def _run(self, program: ElfImage, skip: set[str], now: list[ElfSections]) -> None:
        with contextlib.suppress(OSError):  # not only the tracer's CPU (a container may forbid it)
            os.sched_setaffinity(0, SERVER_CPUS)
        budget = _BOUND
        todo = list(now)  # first: the loaded modules' (searched before any library loads)
        try:  # (the plan first: a library's load waits for it)
            found = self._libraries(program, skip)
            with self._changed:
                self._opened.update(found)
            todo += [opened[1] for opened, _build_id in found.values()]
        except Exception as error:  # noqa: BLE001 - the session opens them itself
            log.debug("no libraries foreseen: %s", error)
        finally:
            with self._changed:
                self._planned = set(self._opened)
                self._changed.notify_all()
        for dwarf in todo:
            if self._closed or budget <= 0:
                break
            done = dwarf.inflate_ahead(_SECTIONS)
            log.debug("inflated %d bytes of %s ahead", done, dwarf.path)
            budget -= done

    def _libraries(self, program: ElfImage, skip: set[str]) -> dict[str, tuple[Opened, str | None]]:
        """The needed libraries not `skip`ped and not indexed in the cache, opened."""
        found = {}
        for path in needed_libraries(program):
            real = os.path.realpath(path)
            if real in skip or real in found:
                continue
            try:
                image = ElfImage.load(path)
                stat = os.stat(real)
                key = IndexCache.key_for(image.build_id, path, stat.st_mtime_ns, stat.st_size)
                if os.path.exists(self._cache.path_for(key)):
                    continue  # indexed by an earlier session
                opened = open_dwarf(path, image.build_id)
            except (AliceError, OSError) as error:
                log.debug("%s not prefetched: %s", path, error)
                continue
            if opened is not None:
                found[real] = (opened, image.build_id)
        return found
