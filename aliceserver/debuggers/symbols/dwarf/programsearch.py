"""A large program's .debug_info searched for `break NAME`'s inlined copies in a child
process, while the session builds the program's index.

A first session of a program with 236 MB of .debug_info (bench/huge_program.py) spent two
long stretches on the tracer thread while the user waited: the index's name part (~200-380
ms) and then the byte search of the whole .debug_info for the units that may hold NAME's
inlined copies (inlines.units_mentioning: ~250-330 ms). The search needs NAME and the
section, not the index, so it runs beside the build: at `break NAME`, before the program's
index is built (it is not cached), its DWARF is opened here, NAME's needles planned
(mentions.py: the session's search waits for them), and a child process (searchchild.py)
searches the section's bytes in the file while this process builds the index with those
same opened sections (mentions keys its answers by them). A waiter thread gives the
child's positions (every one: good for any unit list) to mentions; a child that fails, or
is killed (the session's image changes, the session ends: SectionPrefetch.close), leaves
the session to search itself, as before.
Why a child, not a thread: the search holds the GIL (re, bytes.find) as the build does, so
a thread only took turns with the build. Not a bare fork: its copy-on-write faults cost
this process more than the child saves (aheadchild.py). A child's start costs ~25-40 ms of
the other CPU, so only a plain .debug_info of _LEAST bytes or more is searched so (a
compressed one: sectionprefetch.py's thread inflates it ahead). Measured on that benchmark,
cold (the libraries' indexes cached), 2 CPUs at load 1.6-1.8, 10 interleaved rounds: first
stop median 0.93 s before, 0.73 s after, gdb 0.87 s (ratio to gdb 1.07 -> 0.84).
"""

from __future__ import annotations

import logging
import os
import threading

from aliceserver.aheadchild import AheadChild
from aliceserver.debuggers.symbols.dwarf import indexahead, mentions, searchchild
from aliceserver.debuggers.symbols.dwarf.altfile import shares_units
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.inlines import mention_needles, query_leaf
from aliceserver.debuggers.symbols.dwarf.namepart import index_key
from aliceserver.debuggers.symbols.dwarf.names import normalize_query
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections, open_dwarf
from aliceserver.debuggers.symbols.dwarf.sectionsearch import Needle
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.debuggers.symbols.elfheaders import SHF_COMPRESSED
from aliceserver.errors import AliceError

log = logging.getLogger(__name__)

_SECTION = ".debug_info"
_LEAST = 32 << 20  # bytes of .debug_info worth a child's start
_LEAST_VARIABLE = "ALICESERVER_SEARCH_CHILD_LEAST"  # another _LEAST (tests: a small program)
_PATIENCE = 30.0  # seconds a child may search (236 MB: 0.3 s); then the session searches

Opened = tuple[ElfSections, ElfSections]  # open_dwarf's answer: the file's, its DWARF's


class ProgramSearch:
    """One child searching one program's .debug_info, and the thread that waits for it."""

    def __init__(self, dwarf: ElfSections, needles: list[Needle], offset: int, size: int) -> None:
        self._dwarf = dwarf
        self._needles = needles
        self._child = AheadChild(
            searchchild.MODULE,
            searchchild.arguments(dwarf.path, offset, size, mentions.cap(), needles),
        )
        self._waiter = threading.Thread(target=self._wait, daemon=True, name="aliceserver-search")
        self._waiter.start()

    def hurry(self) -> None:
        """The index is built: the session's thread waits for the child, which may now
        run on its CPU too."""
        self._child.widen()

    def close(self) -> None:
        """Kill the child if it still runs (its askers then search themselves); reap it."""
        self._child.close()
        self._waiter.join()

    def _wait(self) -> None:
        found = None
        try:
            output = self._child.answer(_PATIENCE)
            found = searchchild.answer(output, self._needles) if output is not None else None
        finally:
            self._child.close()  # (one stuck: killed, and the session searches)
            if found is None:
                log.debug("%s not searched in a child: the session searches", self._dwarf.path)
                mentions.release(self._dwarf, self._needles)
            else:
                log.debug("searched %s in a child for %d needles", self._dwarf.path, len(found))
                mentions.answered(self._dwarf, self._needles, found)


def start(image: ElfImage, cache: IndexCache, name: str) -> tuple[Opened, ProgramSearch] | None:
    """When the program `image`'s index is not in `cache` (it is about to be built, or is
    being built by the child started with the server: the session's search is its own) and
    its .debug_info is plain and large: its DWARF opened (for DebugInfo.load), with a
    search of that section for `break NAME`'s needles started in a child; else None."""
    try:
        stat = os.stat(image.path)
        key = IndexCache.key_for(image.build_id, image.path, stat.st_mtime_ns, stat.st_size)
        if os.path.exists(cache.path_for(key)) and not indexahead.program_ahead(cache, key):
            return None  # indexed by an earlier session: no build to search beside
        opened = open_dwarf(image.path, image.build_id)
        if opened is None or _remembered(cache, image, opened, name):
            return None
        dwarf = opened[1]
        header = dwarf.header(_SECTION)
        size = dwarf.size(_SECTION)
        if header is None or header.flags & SHF_COMPRESSED or header.name.startswith(".zdebug"):
            return None
        if size < _least() or shares_units(dwarf):  # (dwz: every unit is walked, no search)
            return None
        needles = mention_needles(dwarf, query_leaf(name))
        planned = mentions.plan(dwarf, needles or ())
    except (AliceError, OSError, ValueError) as error:
        log.debug("%s not searched ahead: %s", image.path, error)
        return None
    if not planned:
        return None
    log.debug("searching %s in a child for %s", dwarf.path, name)
    return opened, ProgramSearch(dwarf, planned, header.offset, size)


def _remembered(cache: IndexCache, image: ElfImage, opened: Opened, name: str) -> bool:
    """Whether NAME's inlined copies are remembered beside the program's index (index.py's
    extras: kept when the index file alone was deleted, as first_stop's cold set-up does):
    nothing to search then."""
    key, identity = index_key(image.build_id, opened[0].path, opened[1].path)
    payload = cache.load(key + "-extra", identity)
    extras = payload.get("extras") if payload is not None else None
    inline = extras.get("inline") if isinstance(extras, dict) else None
    return isinstance(inline, dict) and isinstance(inline.get(normalize_query(name)[0]), list)


def _least() -> int:
    try:
        return int(os.environ.get(_LEAST_VARIABLE, "") or _LEAST)
    except ValueError:
        return _LEAST
