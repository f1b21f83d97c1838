"""The compressed DWARF of the libraries a program will load, searched ahead in a thread.

A first session on a machine builds libc's index when libc loads, and `break NAME` then
searches libc's DWARF for NAME's out-of-line definitions and inlined copies: Debian's
debug files compress it, and inflating libc's .debug_info (5.8 MB) took 20-30 ms of a first
stop on CPython while the program waited. zlib releases the GIL while it inflates, so a
thread does it on the other core while the session builds the program's index and runs it:
the libraries the program will load are foreseen from its file (needed.py), opened as
DebugInfo.load opens them, and their .debug_info searched, a window at a time, for the
names the session asked for (mentions.py: a search of one meanwhile waits for it). Their
sections were inflated whole and kept before: 9 MB of a first session's peak memory
(libc's, libm's and the loader's). The names' needles are planned before the libraries
are handed over (`opened`), so that the session's search waits for the thread's rather than
do it again. DebugInfo.load of such a library takes its sections (`opened`). Only
libraries without an index in the cache are done (a later session's search for a name
the cache does not answer searches on demand, as before), and at most _BOUND bytes. A
foreseen library that does not load costs the thread's work until the session's image
changes. Not a process: a forked child's copy-on-write faults slowed this process more
than the child's work saved. The thread is started from the tracer thread, which is pinned
to one CPU (affinity.py), and would inherit that: it unpins itself, else it inflated on the
tracer's CPU (libc's 7 MB in 55 ms of the first stop's wall instead of beside it).
A large program's own plain .debug_info is searched in a child process instead, while its
index is built (programsearch.py: a byte search holds the GIL, zlib does not).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Sequence

from aliceserver.affinity import SERVER_CPUS
from aliceserver.debuggers.symbols.dwarf import inflatedcache, mentions, programsearch
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.inlines import mention_needles
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections, open_dwarf
from aliceserver.debuggers.symbols.dwarf.sectionsearch import Needle
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.debuggers.symbols.elfheaders import SHF_COMPRESSED
from aliceserver.debuggers.symbols.needed import needed_libraries
from aliceserver.errors import AliceError

log = logging.getLogger(__name__)

# What a name's needles are found in, read whole
_STRINGS = (".debug_str", ".debug_line_str")
_BOUND = 256 << 20  # bytes of .debug_info searched ahead at most

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
        self._names: list[str] = []  # searched for (inlines.query_leaf's), in order asked
        self._searched: dict[ElfSections, int] = {}  # names planned so far, per section
        self._program: tuple[str, ElfImage, str] | None = None  # (path, image, name) to search
        self._looked = False  # the program's sections were asked for: its index is made
        self._program_search: programsearch.ProgramSearch | None = None

    def start(
        self, program: ElfImage, loaded: Sequence[str], now: Sequence[ElfSections], name: str
    ) -> None:
        """Search `now` (sections being searched soon), then the libraries `program`
        needs beyond those `loaded`, for `name` and the names `want`ed later (once per
        session: later calls want `name`)."""
        self.want(name)
        if self._thread is not None:
            return
        skip = {os.path.realpath(path) for path in loaded}
        self._thread = threading.Thread(target=self._run, args=(program, skip, list(now)),
                                        daemon=True, name="aliceserver-prefetch")  # fmt: skip
        self._thread.start()

    def search_program(self, path: str, program: ElfImage, name: str) -> None:
        """`break NAME` before the program at `path` has an index: when it is built, its
        .debug_info is searched for NAME meanwhile, in a child (programsearch.py)."""
        if not self._looked:
            self._program = (path, program, name)

    def program_indexed(self) -> None:
        """The program's index is built (the session waits for its search now)."""
        if self._program_search is not None:
            self._program_search.hurry()

    def opened(self, path: str, build_id: str | None) -> Opened | None:
        """The sections of the library at `path` if the thread opened them, of this build
        (waiting while it looks for it), or of the program being searched in a child; None
        otherwise; each is given once."""
        program = self._program
        if program is not None and program[0] == path:  # (its index is made now)
            self._program, self._looked = None, True
            _path, image, name = program
            same = image.build_id == build_id  # (the image loaded)
            started = programsearch.start(image, self._cache, name) if same else None
            if started is not None:
                ahead, self._program_search = started
                return ahead
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

    def want(self, name: str) -> None:
        """Search for `name` too (in the sections not searched yet)."""
        with self._changed:
            if name and name not in self._names:
                self._names.append(name)

    def close(self) -> None:
        """Stop after the section being searched; drop what was not taken; a child
        searching the program is killed and reaped."""
        with self._changed:
            self._closed = True
            for (_main, dwarf), _built in self._opened.values():  # (their kept files)
                dwarf.close()
            self._opened.clear()
        if self._program_search is not None:
            self._program_search.close()

    def _run(self, program: ElfImage, skip: set[str], now: list[ElfSections]) -> None:
        with contextlib.suppress(OSError):  # not only the tracer's CPU (a container may forbid it)
            os.sched_setaffinity(0, SERVER_CPUS)
        budget = _BOUND
        todo = [dwarf for dwarf in now if _compressed(dwarf)]  # first: the loaded modules'
        planned: dict[ElfSections, list[Needle]] = {}
        try:  # (the plan first: a library's load waits for it)
            planned.update((dwarf, self._plan(dwarf)) for dwarf in todo)
            found = self._libraries(program, skip)
            with self._changed:
                self._opened.update(found)
            todo += [opened[1] for opened, _build_id in found.values() if _compressed(opened[1])]
            planned.update((dwarf, self._plan(dwarf)) for dwarf in todo if dwarf not in planned)
        except Exception as error:  # noqa: BLE001 - the session opens and searches them itself
            log.debug("no libraries foreseen: %s", error)
        finally:
            with self._changed:
                self._planned = set(self._opened)
                self._changed.notify_all()
        try:
            for dwarf in todo:
                if self._closed or budget <= 0:
                    break
                needles = planned.pop(dwarf, []) + self._plan(dwarf)  # (and names asked since)
                mentions.search_ahead(dwarf, needles)
                log.debug("searched %s ahead for %d needles", dwarf.path, len(needles))
                budget -= dwarf.size(".debug_info")
        finally:
            for dwarf, needles in planned.items():  # not searched: their askers search
                mentions.release(dwarf, needles)

    def _plan(self, dwarf: ElfSections) -> list[Needle]:
        """The needles of the names not planned in `dwarf` yet, planned (mentions.plan)."""
        with self._changed:
            names = self._names[self._searched.get(dwarf, 0) :]
            self._searched[dwarf] = len(self._names)
        if not names:
            return []
        try:
            dwarf.inflate_ahead(_STRINGS)
            needles = [n for name in names for n in mention_needles(dwarf, name) or ()]
        except (AliceError, OSError, ValueError) as error:  # its askers search themselves
            log.debug("%s not searched ahead: %s", dwarf.path, error)
            return []
        return mentions.plan(dwarf, needles)

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
                inflatedcache.remember(opened[1], self._cache, key)  # (for later sessions)
                found[real] = (opened, image.build_id)
        return found


def _compressed(dwarf: ElfSections) -> bool:
    """Whether `dwarf`'s .debug_info is compressed (a plain one the session searches as
    fast itself: nothing to inflate)."""
    header = dwarf.header(".debug_info")
    return header is not None and (
        bool(header.flags & SHF_COMPRESSED) or header.name.startswith(".zdebug")
    )
