"""A child process building the index name parts of the libraries a program will load, and
storing them in the index cache, while the session builds the program's own (indexahead.py).

`python -m aliceserver.debuggers.symbols.dwarf.indexchild CACHE_DIR MARKER PROGRAM MTIME
SIZE ENTRY...`: each ENTRY is `+PATH` (index it, unless the cache has it) or `=PATH`
(only listed), in the order the loader maps them. It prints `ready` once its modules are
imported, then a line per `+` library, as it is done: `built KEY` (stored), `had KEY`
(another process stored it meanwhile), `none KEY` (no DWARF: nothing to index) or `failed
KEY`; KEY is the cache key DebugInfo.load reads it by. Before those it stores MARKER, the
list of the program's libraries and their keys, for the next session's check
(indexahead.py). It imports only childstart.py, the ELF reader, the cache and namepart.py
(no engine).

`... indexchild --program CACHE_DIR PROGRAM`: the child started with the server
(programahead.py), before the program runs: it prints `ready`, builds and stores the
program's index (its line as above), then plans its libraries itself (needed.py: the
loader first, whose index the session wants first), prints `plan KEY...` (those it will
index) and goes on as above.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from aliceserver.childstart import child_started

if __name__ == "__main__":  # the child: ends with its parent; imports as the server does
    child_started()  # (startup.py: byte code bundled, collector paused; 45 -> 30 ms of CPU)
    from aliceserver.startup import import_quietly

    import_quietly("aliceserver.debuggers.symbols.dwarf.sections")
    import_quietly("aliceserver.debuggers.symbols.dwarf.namepart")

from aliceserver.debuggers.symbols.dwarf.cache import IndexCache  # noqa: E402
from aliceserver.debuggers.symbols.dwarf.namepart import build_name_part, index_key  # noqa: E402
from aliceserver.debuggers.symbols.dwarf.sections import open_dwarf  # noqa: E402
from aliceserver.debuggers.symbols.elf import ElfImage  # noqa: E402
from aliceserver.errors import AliceError  # noqa: E402

MODULE = "aliceserver.debuggers.symbols.dwarf.indexchild"


def arguments(directory: str, marker: str, program: tuple[str, int, int],
              entries: Sequence[tuple[bool, str]]) -> list[str]:  # fmt: skip
    """The child's command line: `entries` as (to index, library path)."""
    path, mtime_ns, size = program
    return [directory, marker, path, str(mtime_ns), str(size),
            *(("+" if wanted else "=") + library for wanted, library in entries)]  # fmt: skip


def _say(line: str) -> None:
    out = f"{line}\n".encode()
    while out:  # (a pipe takes it in parts)
        out = out[os.write(1, out) :]


def _key(path: str) -> tuple[str, tuple[str, int, int, str], object]:
    """(the key the library at `path` is indexed by, its marker entry (its key "" when it
    has no DWARF: no index), its index's identity (None: no DWARF))."""
    image = ElfImage.load(path)
    stat = os.stat(path)
    opened = open_dwarf(path, image.build_id)
    if opened is None:
        key = IndexCache.key_for(image.build_id, path, stat.st_mtime_ns, stat.st_size)
        return key, (path, stat.st_mtime_ns, stat.st_size, ""), None
    key, identity = index_key(image.build_id, opened[0].path, opened[1].path)
    return key, (path, stat.st_mtime_ns, stat.st_size, key), identity


def main(argv: Sequence[str]) -> None:
    if argv[0] == "--program":
        _program(*argv[1:])
        return
    directory, marker, program, mtime_ns, size, *entries = argv
    _say("ready")
    known = []
    for entry in entries:
        try:
            known.append((entry[0] == "+", entry[1:], *_key(entry[1:])))
        except (AliceError, OSError, ValueError) as error:
            if entry[0] == "+":
                _say(f"failed {entry[1:]} {error}")
    _libraries(IndexCache(directory), marker, (program, int(mtime_ns), int(size)), known)


def _program(directory: str, path: str) -> None:
    _say("ready")
    cache = IndexCache(directory)
    try:
        key, _listing, identity = _key(path)
    except (AliceError, OSError, ValueError):
        return  # (the session sees the child end: it builds the index itself)
    _build(cache, path, key, identity)
    from aliceserver.debuggers.symbols.needed import needed_libraries  # (after: it can wait)

    try:
        image = ElfImage.load(path)
        stat = os.stat(path)
        libraries = needed_libraries(image)
    except (AliceError, OSError):
        return
    loader = os.path.realpath(image.interp) if image.interp else None
    libraries.sort(key=lambda library: os.path.realpath(library) != loader)  # (stable)
    known = []
    for library in libraries:
        try:
            library_key, listing, library_identity = _key(library)
        except (AliceError, OSError, ValueError):
            continue
        wanted = library_identity is not None and not os.path.exists(cache.path_for(library_key))
        known.append((wanted, library, library_key, listing, library_identity))
    program = (os.path.realpath(path), stat.st_mtime_ns, stat.st_size)
    _libraries(cache, key + "-libraries", program, known, plan=True)


def _libraries(cache: IndexCache, marker: str, program: tuple[str, int, int],
               known: Sequence[tuple[bool, str, str, tuple[str, int, int, str], object]],
               plan: bool = False) -> None:  # fmt: skip
    """Store `marker`, the list of the program's libraries, then index those `known` as
    wanted: (wanted, path, key, marker entry, identity) each (`plan`: say their keys first)."""
    # First: the session may kill this child once it has heard of each library it waits for
    cache.store(marker, program, {"libraries": [entry[3] for entry in known]})
    if plan:
        planned = (key for wanted, _path, key, _listing, _identity in known if wanted)
        _say(" ".join(["plan", *planned]))
    for wanted, path, key, _listing, identity in known:
        if wanted:
            _build(cache, path, key, identity)


def _build(cache: IndexCache, path: str, key: str, identity: object) -> None:
    """Index the binary at `path` under `key`, unless it is indexed; say how it went."""
    if identity is None:
        _say(f"none {key}")
    elif os.path.exists(cache.path_for(key)):
        _say(f"had {key}")
    else:
        try:
            cache.store(key, identity, build_name_part(ElfImage.load(path)))
        except (AliceError, OSError, ValueError):
            _say(f"failed {key}")
            return
        _say(f"{'built' if cache.writable else 'failed'} {key}")


if __name__ == "__main__":
    main(sys.argv[1:])
    os._exit(0)  # (the interpreter's teardown is nobody's business)
